import type { Worker } from '@temporalio/worker';
import { startAgent } from '../../client/start-agent';
import { endSessionSignal, sendMessageUpdate } from '../../workflows/definitions';
import { openaiReply } from '../support/fake-model-server';
import { collect, lastJsonLine, runCli, spawnCli } from '../support/cli';
import { createTestWorker, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';

let worker: Worker;
let taskQueue: string;
let running: Promise<void>;
// Declared before the test bed's, so it runs first: the worker lets go of the connection the bed then closes.
afterAll(async () => {
  worker?.shutdown();
  await running;
});
const bed = useTestBed();
const sentence = 'The quick brown fox jumps over the lazy dog, and then it naps in the warm afternoon sun.';
const model = 'openai:gpt-4o-mini';

beforeAll(async () => {
  taskQueue = uniqueTaskQueue('watch-cli');
  worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  running = worker.run();
});

const cliEnv = () => ({ AGENT_TASK_QUEUE: taskQueue, ...bed.server.providerEnv });
const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

it('agent watch prints the text as it is written and the tool calls, in order, and ends with the run', async () => {
  // The model starts answering once both watchers are there.
  let watchersThere: () => void = () => {};
  const gate = new Promise<void>((resolve) => (watchersThere = resolve));
  bed.server.enqueue(
    {
      gate,
      then: {
        ...openaiReply({ content: 'Let me look.', toolCalls: [{ id: 'call_1', name: 'list_directory', arguments: {} }] }),
        stream: { intervalMs: 30 },
      },
    },
    { ...openaiReply({ content: sentence }), stream: { intervalMs: 80 } },
  );
  const workflowId = `watch-${Date.now()}`;
  const started = await runCli(
    ['run', 'what is here?', '--detach', '--stream', '--id', workflowId, '--workspace', bed.workspace, '--model', model],
    cliEnv(),
  );
  expect(started.code).toBe(0);
  const watchers = [
    spawnCli(['watch', workflowId], cliEnv(), { stdin: 'ignore' }),
    spawnCli(['watch', workflowId, '--json'], cliEnv(), { stdin: 'ignore' }),
  ];
  const watching = Promise.all(watchers.map((watcher) => collect(watcher)));
  const said = watchers.map(() => '');
  watchers.forEach((watcher, index) => watcher.stderr!.on('data', (chunk: Buffer) => (said[index] += chunk.toString())));
  await waitFor('both watchers to attach', () => said.every((text) => text.includes('watching')));
  watchersThere();
  const [plain, json] = await watching;
  expect(bed.server.refusals).toEqual([]);
  expect(plain.code).toBe(0);
  expect(plain.stdout).toBe(['── turn 1', 'Let me look.', '  → list_directory', '  ✓ list_directory', sentence, ''].join('\n'));
  expect(plain.stderr).toContain(`run ${workflowId} ended: completed`);

  expect(json.code).toBe(0);
  const events = jsonLines(json.stdout);
  const offsets = events.slice(0, -1).map((event) => event.offset as number);
  expect(offsets).toEqual(offsets.map((_, index) => index));
  // The run may end before the watcher's next poll: its last events are then told by run_end, which always comes.
  const lastCall = [...events].reverse().find((event) => event.type === 'text')?.call;
  const lastText = events.filter((event) => event.type === 'text' && event.call === lastCall);
  // Written over about 1.5 s: more than one batch of text, each continuing the answer. The batch the run ended on
  // may reach the watcher only as part of run_end's answer (seen on a loaded CI machine).
  expect(lastText.length).toBeGreaterThan(1);
  const streamed = lastText.map((event) => event.text).join('');
  expect(sentence.startsWith(streamed)).toBe(true);
  expect(events[events.length - 1]).toEqual({ type: 'run_end', workflowId, status: 'completed', answer: sentence });
}, 60_000);

it('agent watch --from OFFSET starts there, and ends when the session ends', async () => {
  bed.server.enqueue(openaiReply({ content: 'one' }), openaiReply({ content: 'two' }));
  const handle = await startAgent(
    bed.environment.client,
    { model, tools: [], workspace: bed.workspace, session: { idleTimeoutSeconds: 600 }, stream: true },
    { taskQueue },
  );
  await handle.executeUpdate(sendMessageUpdate, { args: ['first'] });
  await handle.executeUpdate(sendMessageUpdate, { args: ['second'] });
  // Turn 1 is turn_start 0, text 1, reply 2, turn_end 3: turn 2 starts at 4.
  const watcher = spawnCli(['watch', handle.workflowId, '--from', '4', '--json'], cliEnv(), { stdin: 'ignore' });
  const watching = collect(watcher);
  let seen = '';
  watcher.stdout!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
  await waitFor('turn 2 on the watcher', () => seen.includes('"turn_end"'));
  await handle.signal(endSessionSignal);
  const watched = await watching;
  expect(watched.code).toBe(0);
  const events = jsonLines(watched.stdout);
  expect(events[0]).toMatchObject({ offset: 4, type: 'turn_start', turn: 2 });
  expect(events.map((event) => event.type)).toEqual(['turn_start', 'text', 'reply', 'turn_end', 'run_end']);
  expect(events[3]).toMatchObject({ type: 'turn_end', answer: 'two' });
  expect(events[4]).toMatchObject({ type: 'run_end', status: 'ended' });
}, 60_000);

it('agent run --stream prints the answer as it is written, once; --json output is unchanged', async () => {
  bed.server.enqueue({ ...openaiReply({ content: sentence }), stream: { intervalMs: 20 } });
  const streamed = await runCli(['run', 'tell me', '--stream', '--workspace', bed.workspace, '--model', model], cliEnv());
  expect(streamed.code).toBe(0);
  expect(streamed.stdout).toBe(`${sentence}\n`);
  expect(bed.server.requests[0].body.stream).toBe(true);

  bed.server.enqueue({ ...openaiReply({ content: sentence }), stream: { intervalMs: 20 } });
  const json = await runCli(['run', 'tell me', '--json', '--stream', '--workspace', bed.workspace, '--model', model], cliEnv());
  expect(json.code).toBe(0);
  expect(json.stdout.trim().split('\n')).toHaveLength(1);
  expect(lastJsonLine(json.stdout)).toMatchObject({ status: 'completed', answer: sentence });

  bed.server.enqueue(openaiReply({ content: sentence }));
  const plain = await runCli(['run', 'tell me', '--json', '--workspace', bed.workspace, '--model', model], cliEnv());
  expect(lastJsonLine(plain.stdout)).toMatchObject({ status: 'completed', answer: sentence });
  // Not on a terminal and not asked for: the model is called as before, without streaming.
  expect(bed.server.requests[2].body.stream).toBeUndefined();
}, 90_000);

it('agent chat --stream prints each answer as it is written, once', async () => {
  bed.server.enqueue(
    { ...openaiReply({ content: sentence }), stream: { intervalMs: 20 } },
    { ...openaiReply({ content: 'Bye now.' }), stream: { intervalMs: 20 } },
  );
  const chat = spawnCli(['chat', '--stream', '--workspace', bed.workspace, '--model', model], cliEnv(), { stdin: 'pipe' });
  const done = collect(chat);
  let seen = '';
  chat.stdout!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
  chat.stdin!.write('tell me about the fox\n');
  await waitFor('the first answer', () => seen.includes(sentence));
  chat.stdin!.write('thanks\n');
  await waitFor('the second answer', () => seen.includes('Bye now.'));
  chat.stdin!.end('/end\n');
  const result = await done;
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(`${sentence}\nBye now.\n`);
}, 90_000);
