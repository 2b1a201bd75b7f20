import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { EventType, type BaseEvent } from '@ag-ui/core';
import type { Worker } from '@temporalio/worker';
import { createAgUiHandler } from '../../web/ag-ui-handler';
import { createChatHandler } from '../../web/chat-handler';
import { openaiReply } from '../support/fake-model-server';
import { createTestWorker, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { fileExists } from '../support/workspace';
import { readAgUiRun } from './ag-ui-sequence';

// The AG-UI endpoint on a real dev server, with a worker and the strict fake model: a thread's runs as an AG-UI
// client reads them (every event checked against @ag-ui/core's schemas and ordering rules), an approval as an
// interrupt answered by the next run, and the refusals of bad input.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

const taskQueue = uniqueTaskQueue('ag-ui');
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
});

const options = () => ({
  client: bed.environment.client,
  taskQueue,
  authorize: (request: Request) => request.headers.get('x-user') ?? undefined,
  input: {
    model: 'openai:gpt-4o-mini',
    tools: ['write_file'],
    workspace: bed.workspace,
    approval: { tools: ['write_file'], skip: false, timeoutSeconds: 600 },
  },
  maxBodyBytes: 64 * 1024,
});
const handler = () => createAgUiHandler(options());

const runInput = (threadId: string, runId: string, extra: Record<string, unknown>) => ({
  threadId,
  runId,
  state: {},
  tools: [],
  context: [],
  forwardedProps: {},
  messages: [],
  ...extra,
});

async function post(body: unknown, user = 'alice', raw?: string): Promise<Response> {
  return handler()(
    new Request('http://localhost/api/ag-ui', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(user && { 'x-user': user }) },
      body: raw ?? JSON.stringify(body),
    }),
  );
}

const textOf = (events: BaseEvent[]) =>
  events
    .flatMap((event) => (event.type === EventType.TEXT_MESSAGE_CONTENT ? [(event as unknown as { delta: string }).delta] : []))
    .join('');

it('runs a thread: each message a run, its text streamed, finished with the answer and usage', async () => {
  const thread = `thread-${Date.now()}`;
  bed.server.enqueue(
    { ...openaiReply({ content: 'The first answer, written word by word.' }), stream: { intervalMs: 30 } },
    { ...openaiReply({ content: 'The second answer.' }), stream: { intervalMs: 30 } },
  );
  const first = await readAgUiRun(
    await post(runInput(thread, 'run-1', { messages: [{ id: 'u1', role: 'user', content: 'Hello' }] })),
  );
  expect(first[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId: thread, runId: 'run-1' });
  expect(textOf(first)).toBe('The first answer, written word by word.');
  expect(first.at(-1)).toMatchObject({
    type: EventType.RUN_FINISHED,
    outcome: { type: 'success' },
    result: { answer: 'The first answer, written word by word.' },
    usage: [{ model: 'openai:gpt-4o-mini', inputTokens: 100 }],
  });

  const second = await readAgUiRun(
    await post(
      runInput(thread, 'run-2', {
        messages: [
          { id: 'u1', role: 'user', content: 'Hello' },
          { id: 'a1', role: 'assistant', content: 'The first answer, written word by word.' },
          { id: 'u2', role: 'user', content: 'And again' },
        ],
      }),
    ),
  );
  // The second run tells the second turn only; the model got the conversation from the session, not from the client.
  expect(textOf(second)).toBe('The second answer.');
  // No AG-UI read-back: no MESSAGES_SNAPSHOT (the client holds its messages), and no GET of a thread.
  expect([...first, ...second].filter((event) => event.type === EventType.MESSAGES_SNAPSHOT)).toEqual([]);
  const read = await handler()(new Request(`http://localhost/api/ag-ui/${thread}`, { headers: { 'x-user': 'alice' } }));
  expect(read.status).toBe(405);
  const userMessages = bed.server.requests[1].body.messages.filter((message: { role: string }) => message.role === 'user');
  expect(userMessages.map((message: { content: string }) => message.content)).toEqual(['Hello', 'And again']);

  // One session, two adapters: useChat's handler shows the same conversation by the same id, to its owner only.
  const chat = createChatHandler(options());
  const asUser = (user: string) => new Request(`http://localhost/api/chat/${thread}`, { headers: { 'x-user': user } });
  const conversation = await chat(asUser('alice'));
  expect(conversation.status).toBe(200);
  const shown = JSON.stringify(await conversation.json());
  expect(shown).toContain('And again');
  expect(shown).toContain('The second answer.');
  expect((await chat(asUser('bob'))).status).toBe(404);
  // Nor may another principal post to the thread: the same 404 as for no thread, and the model hears nothing.
  const requestsBefore = bed.server.requests.length;
  const intrusion = await post(
    runInput(thread, 'run-x', { messages: [{ id: 'u9', role: 'user', content: 'let me in' }] }),
    'bob',
  );
  expect(intrusion.status).toBe(404);
  expect(bed.server.requests.length).toBe(requestsBefore);
});

it('ends a run at an approval as an interrupt with what will run, and the next run answers it', async () => {
  const thread = `thread-approval-${Date.now()}`;
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'agui.txt', content: 'FROM AG-UI' } }] }),
    openaiReply({ content: 'Written.' }),
  );
  const asked = await readAgUiRun(
    await post(runInput(thread, 'run-1', { messages: [{ id: 'u1', role: 'user', content: 'Write it' }] })),
  );
  const finished = asked.at(-1) as BaseEvent & { outcome: { type: string; interrupts: Array<Record<string, string>> } };
  expect(finished.outcome.type).toBe('interrupt');
  expect(finished.outcome.interrupts).toHaveLength(1);
  const [interrupt] = finished.outcome.interrupts;
  expect(interrupt).toMatchObject({ reason: 'tool_approval' });
  expect(interrupt.message).toContain('agui.txt');
  expect(await fileExists(path.join(bed.workspace, 'agui.txt'))).toBe(false);

  const resumed = await readAgUiRun(
    await post(
      runInput(thread, 'run-2', { resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }] }),
    ),
  );
  expect(resumed.map((event) => event.type)).toContain(EventType.TOOL_CALL_RESULT);
  // The call as it runs: its name, then its arguments as JSON, equal to what the model sent.
  expect(resumed.find((event) => event.type === EventType.TOOL_CALL_START)).toMatchObject({ toolCallName: 'write_file' });
  const args = resumed.find((event) => event.type === EventType.TOOL_CALL_ARGS) as BaseEvent & { delta: string };
  expect(JSON.parse(args.delta)).toEqual({ path: 'agui.txt', content: 'FROM AG-UI' });
  expect(textOf(resumed)).toBe('Written.');
  expect(resumed.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
  expect(await readFile(path.join(bed.workspace, 'agui.txt'), 'utf8')).toBe('FROM AG-UI');
  // Answering the same interrupt again is refused: a decision releases exactly one call.
  const again = await post(
    runInput(thread, 'run-3', { resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }] }),
  );
  expect(again.status).toBe(409);
});

it('refuses bad input with a clear 4xx before anything reaches a session', async () => {
  const before = bed.server.requests.length;
  expect((await post(undefined, 'alice', '{"threadId": ')).status).toBe(400);
  const notInput = await post({ hello: 'world' });
  expect(notInput.status).toBe(400);
  expect(((await notInput.json()) as { error: string }).error).toMatch(/RunAgentInput/);
  expect((await post(runInput('t', 'r', { messages: [{ id: 'u', role: 'user', content: 'hi' }] }), '')).status).toBe(401);
  expect((await post(runInput('t', 'r', { messages: [{ id: 'u', role: 'user', content: 'x'.repeat(70_000) }] }))).status).toBe(
    413,
  );
  // Another person's thread, or none: the same 404.
  const resume = runInput('no-such-thread', 'r', {
    resume: [{ interruptId: 'call_x', status: 'resolved', payload: { approved: true } }],
  });
  expect((await post(resume, 'mallory')).status).toBe(404);
  expect(bed.server.requests.length).toBe(before);
});
