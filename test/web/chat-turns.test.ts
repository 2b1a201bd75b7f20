import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { openaiReply } from '../support/fake-model-server';
import { killSpawnedWorkers, spawnWorker } from '../support/spawned-worker';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { fileExists } from '../support/workspace';
import { chat, newChatId, resume, serveHandler, textOf, userMessage, type ServedHandler, type UiMessage } from './chat-client';

// Turns that do not simply run to their end: a reload mid-answer, stop, the worker dying mid-answer, approvals.
// Workers are processes of their own here, so that one can be killed as a crash would.

let served: ServedHandler | undefined;
afterAll(async () => {
  await served?.close();
  await killSpawnedWorkers();
});
const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

const sentence = 'The quick brown fox jumps over the lazy dog, and then it naps in the warm afternoon sun.';
const taskQueue = uniqueTaskQueue('web-turns');
const alice = { 'x-user': 'alice' };
const startWorker = (identity: string) =>
  spawnWorker({ address: process.env.TEST_TEMPORAL_ADDRESS!, taskQueue, identity, env: bed.server.providerEnv });

beforeAll(async () => {
  served = await serveHandler({
    client: bed.environment.client,
    taskQueue,
    authorize: (request) => request.headers.get('x-user') ?? undefined,
    input: {
      model: 'openai:gpt-4o-mini',
      tools: ['write_file'],
      workspace: bed.workspace,
      approval: { tools: ['write_file'], timeoutSeconds: 600 },
    },
  });
});

const api = () => served!.api;
const turnInProgress = async (id: string) =>
  ((await (await fetch(`${api()}/${id}`, { headers: alice })).json()) as { turnInProgress: boolean }).turnInProgress;

it('a reload mid-answer: the aborted request does not stop the turn, and resume shows the whole answer exactly once', async () => {
  await startWorker('web-turns-1');
  bed.server.enqueue({ ...openaiReply({ content: sentence }), stream: { intervalMs: 400 } });
  const id = newChatId();
  // The page goes away after the first few chunks (what a reload does to useChat's fetch).
  const first = await chat(api(), 'alice', id, [userMessage('tell me about the fox')], { abortAfterChunks: 4 });
  expect(first.chunks.length).toBeLessThan(20);
  expect(await turnInProgress(id)).toBe(true);
  const resumed = await resume(api(), 'alice', id);
  expect(resumed).not.toBeNull();
  expect(resumed!.invalid).toEqual([]);
  expect(resumed!.message.id).toBe('turn-1');
  expect(textOf(resumed!.message)).toBe(sentence);
  expect(resumed!.chunks.filter((chunk) => chunk.type === 'start')).toHaveLength(1);
  expect(resumed!.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  // The turn ran to its end on the server: one model call, the answer in the conversation.
  expect(bed.server.requests).toHaveLength(1);
  expect(await resume(api(), 'alice', id)).toBeNull();
});

it('stop interrupts the turn in progress; the session goes on and answers the next message', async () => {
  bed.server.enqueue(
    { ...openaiReply({ content: `${sentence} ${sentence} ${sentence}` }), stream: { intervalMs: 200 } },
    openaiReply({ content: 'Still here.' }),
  );
  const id = newChatId();
  const answering = chat(api(), 'alice', id, [userMessage('talk for a long time')]);
  await waitFor(
    'the turn to be in progress',
    async () => (await fetch(`${api()}/${id}`, { headers: alice })).ok && turnInProgress(id),
  );
  const stopped = await fetch(`${api()}/${id}/stop`, {
    method: 'POST',
    headers: { ...alice, 'content-type': 'application/json' },
  });
  expect(stopped.status).toBe(200);
  const answer = await answering;
  expect(answer.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'interrupted' });
  expect(textOf(answer.message).length).toBeLessThan(3 * sentence.length);
  // Nothing to stop now: 409, not a silent success.
  expect(
    (await fetch(`${api()}/${id}/stop`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json' } })).status,
  ).toBe(409);
  const next = await chat(api(), 'alice', id, [userMessage('are you there?')]);
  expect(textOf(next.message)).toBe('Still here.');
  expect(JSON.stringify(bed.server.requests[1].body.messages)).toContain('are you there?');
});

it('approves one write and denies another through the approval parts; the approval shows what will really run', async () => {
  bed.server.enqueue(
    openaiReply({
      content: 'Writing both.',
      toolCalls: [
        { id: 'call_keep', name: 'write_file', arguments: { path: 'keep.txt', content: 'kept\n' } },
        { id: 'call_drop', name: 'write_file', arguments: { path: 'drop.txt', content: 'dropped\n' } },
      ],
    }),
    openaiReply({ content: 'One written, one denied.' }),
  );
  const id = newChatId();
  const asked = await chat(api(), 'alice', id, [userMessage('write two files')]);
  expect(asked.invalid).toEqual([]);
  expect(asked.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  const tools = asked.message.parts.filter((part) => part.type === 'tool-write_file');
  expect(tools.map((part) => part.state)).toEqual(['approval-requested', 'approval-requested']);
  const keep = tools.find((part) => part.toolCallId === 'call_keep')!;
  expect((keep.approval as { id: string }).id).toBe('call_keep');
  expect(JSON.stringify(asked.chunks.find((chunk) => chunk.type === 'tool-approval-request'))).toContain('keep.txt');
  // What useChat's addToolApprovalResponse makes of the message, then sends (sendAutomaticallyWhen).
  const responded: UiMessage = {
    ...asked.message,
    parts: asked.message.parts.map((part) =>
      part.type !== 'tool-write_file'
        ? part
        : {
            ...part,
            state: 'approval-responded',
            approval: {
              ...(part.approval as object),
              approved: part.toolCallId === 'call_keep',
              ...(part.toolCallId === 'call_drop' && { reason: 'not that one' }),
            },
          },
    ),
  };
  const done = await chat(api(), 'alice', id, [userMessage('write two files'), responded], {
    messageId: responded.id,
    lastMessage: responded,
  });
  expect(done.invalid).toEqual([]);
  expect(textOf(done.message)).toContain('One written, one denied.');
  const states = Object.fromEntries(
    done.message.parts.filter((part) => part.type === 'tool-write_file').map((part) => [part.toolCallId, part.state]),
  );
  expect(states).toEqual({ call_keep: 'output-available', call_drop: 'output-denied' });
  expect(await readFile(path.join(bed.workspace, 'keep.txt'), 'utf8')).toBe('kept\n');
  expect(await fileExists(path.join(bed.workspace, 'drop.txt'))).toBe(false);
  const results = JSON.stringify(bed.server.requests[1].body.messages);
  expect(results).toContain('not that one');
});

it('the worker killed mid-answer: the open response still brings the whole answer, the partial attempt dropped', async () => {
  bed.server.enqueue(
    { ...openaiReply({ content: sentence }), stream: { intervalMs: 150, stopAfter: 6 } },
    { ...openaiReply({ content: sentence }), stream: { intervalMs: 50 } },
  );
  await killSpawnedWorkers();
  const worker = await startWorker('web-turns-a');
  const id = newChatId();
  const answering = chat(api(), 'alice', id, [userMessage('tell me about the fox')]);
  await waitFor('part of the answer', async () => bed.server.requests.length > 0 && (await turnInProgress(id)), {
    timeoutMs: 60_000,
  });
  await new Promise((resolve) => setTimeout(resolve, 800));
  await worker.kill();
  await startWorker('web-turns-b');
  const answer = await answering;
  expect(answer.invalid).toEqual([]);
  expect(textOf(answer.message)).toBe(sentence);
  expect(answer.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  expect(bed.server.requests).toHaveLength(2);
});
