import { followStream } from '../../client/follow-stream';
import { startAgent } from '../../client/start-agent';
import type { StreamEvent } from '../../core/stream-events';
import { endSessionSignal, sendMessageUpdate } from '../../workflows/definitions';
import { collect, spawnCli } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { spawnWorker } from '../support/spawned-worker';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// Worker A streams part of an answer and is SIGKILLed mid-stream; after the 30 s heartbeat timeout,
// worker B's attempt 2 writes the answer again. Subscribers get `reset` first, and show the answer once.

const bed = useTestBed({ spawnedWorkers: true });

const sentence = 'The quick brown fox jumps over the lazy dog, and then it naps in the warm afternoon sun.';

it('a model call killed mid-stream is reset for subscribers, and its answer is shown exactly once', async () => {
  const taskQueue = uniqueTaskQueue('stream-reset');
  const startWorker = (identity: string) =>
    spawnWorker({ address: process.env.TEST_TEMPORAL_ADDRESS!, taskQueue, identity, env: bed.server.providerEnv });
  // Attempt 1: the role and five words, then nothing more (the worker dies). Attempt 2: the whole answer.
  bed.server.enqueue(
    { ...openaiReply({ content: sentence }), stream: { intervalMs: 100, stopAfter: 6 } },
    { ...openaiReply({ content: sentence }), stream: { intervalMs: 50 } },
  );
  const workerA = await startWorker('worker-a');
  const handle = await startAgent(
    bed.environment.client,
    {
      model: 'openai:gpt-4o-mini',
      tools: [],
      workspace: await makeWorkspace(),
      session: { idleTimeoutSeconds: 600 },
      stream: true,
    },
    { taskQueue },
  );
  const events: StreamEvent[] = [];
  const following = followStream(bed.environment.client, handle.workflowId, {
    from: 0,
    onEvent: (item) => events.push(item.data),
  });
  const watcher = spawnCli(['watch', handle.workflowId], { AGENT_TASK_QUEUE: taskQueue }, { stdin: 'ignore' });
  const watched = collect(watcher);
  const reply = handle.executeUpdate(sendMessageUpdate, { args: ['tell me about the fox'] });

  const textSoFar = () => events.flatMap((event) => (event.type === 'text' ? [event.text] : [])).join('');
  await waitFor('part of the answer on the stream', () => textSoFar().startsWith('The quick brown fox jumps'), {
    timeoutMs: 60_000,
  });
  await workerA.kill();
  await startWorker('worker-b');
  expect(await reply).toMatchObject({ answer: sentence, status: 'completed' });
  await waitFor('the turn to end on the stream', () => events.some((event) => event.type === 'turn_end'), { timeoutMs: 30_000 });
  await handle.signal(endSessionSignal);
  await following;
  const watchedOutput = await watched;

  const reset = events.findIndex((event) => event.type === 'reset');
  expect(events[reset]).toMatchObject({ type: 'reset', attempt: 2 });
  const call = (events[reset] as { call: string }).call;
  const textOf = (slice: StreamEvent[]) =>
    slice.flatMap((event) => (event.type === 'text' && event.call === call ? [event.text] : [])).join('');
  const before = textOf(events.slice(0, reset));
  expect(before.length).toBeGreaterThan(0);
  expect(sentence.startsWith(before) && before.length < sentence.length).toBe(true);
  expect(textOf(events.slice(reset))).toBe(sentence);
  expect(events.find((event) => event.type === 'reply')).toMatchObject({ call, text: sentence });
  expect(bed.server.refusals).toEqual([]);

  // The person watching saw the answer once: the retry repeated what was shown, and only the rest was printed.
  expect(watchedOutput.code).toBe(0);
  expect(watchedOutput.stdout.split('The quick').length - 1).toBe(1);
  expect(watchedOutput.stdout).toContain(sentence);
}, 180_000);
