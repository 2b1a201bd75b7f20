import { EventType, type BaseEvent } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { openaiReply } from '../support/fake-model-server';
import { spawnCli } from '../support/cli';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { assertAgUiSequence } from './ag-ui-sequence';
import { chat, newChatId, textOf, userMessage } from './chat-client';

// `agent serve` as a person starts it: a process of its own, with the CLI's connection settings and its own worker.

const bed = useTestBed();
jest.setTimeout(180_000);

it('serves /api/chat: a message sent through DefaultChatTransport is answered by the agent it was started with', async () => {
  bed.server.enqueue({ ...openaiReply({ content: 'Served by agent serve.' }), stream: { intervalMs: 20 } });
  const child = spawnCli(
    ['serve', '--port', '0', '--model', 'openai:gpt-4o-mini', '--workspace', bed.workspace, '--static', bed.workspace],
    { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('serve') },
    { stdin: 'ignore' },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const api = await waitFor('agent serve listening', () => /serving (http:\/\/127\.0\.0\.1:\d+\/api\/chat)/.exec(stderr)?.[1], {
      timeoutMs: 90_000,
    });
    const id = newChatId();
    const { message, invalid } = await chat(api, 'anyone', id, [userMessage('hello from the page')]);
    expect(invalid).toEqual([]);
    expect(textOf(message)).toBe('Served by agent serve.');
    expect(JSON.stringify(bed.server.requests[0].body.messages)).toContain('hello from the page');
    // Unknown routes and methods: clear JSON errors.
    const wrong = await fetch(api, { method: 'GET' });
    expect(wrong.status).toBe(405);
    expect(await wrong.json()).toEqual({ error: 'POST only here' });
  } finally {
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  expect(bed.server.refusals).toEqual([]);
});

it('serves AG-UI at /api/ag-ui: a RunAgentInput is answered with a valid RUN_STARTED ... RUN_FINISHED stream, for its principal', async () => {
  bed.server.enqueue({ ...openaiReply({ content: 'An AG-UI answer from agent serve.' }), stream: { intervalMs: 20 } });
  const child = spawnCli(
    [
      'serve',
      '--port',
      '0',
      '--model',
      'openai:gpt-4o-mini',
      '--workspace',
      bed.workspace,
      '--static',
      bed.workspace,
      '--principal-header',
      'X-User',
    ],
    { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('serve-ag-ui') },
    { stdin: 'ignore' },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const agUi = await waitFor(
      'agent serve listening',
      () => /AG-UI at (http:\/\/127\.0\.0\.1:\d+\/api\/ag-ui)/.exec(stderr)?.[1],
      {
        timeoutMs: 90_000,
      },
    );
    const threadId = newChatId();
    const input = {
      threadId,
      runId: 'run-1',
      state: {},
      tools: [],
      context: [],
      forwardedProps: {},
      messages: [{ id: 'u1', role: 'user', content: 'hello from an AG-UI client' }],
    };
    const post = (headers: Record<string, string>) =>
      fetch(agUi, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(input) });
    // The same authorize as /api/chat: no principal header, no run (and no model call).
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: 'not signed in' });
    expect(bed.server.requests).toHaveLength(0);

    const response = await post({ 'x-user': 'alice' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text())
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice('data: '.length)) as BaseEvent);
    for (const event of events) {
      const parsed = EventSchema.safeParse(event);
      if (!parsed.success) throw new Error(`${event.type} fails @ag-ui/core's schema: ${parsed.error.message}`);
    }
    assertAgUiSequence(events);
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId, runId: 'run-1' });
    const text = events
      .flatMap((event) => (event.type === EventType.TEXT_MESSAGE_CONTENT ? [(event as unknown as { delta: string }).delta] : []))
      .join('');
    expect(text).toBe('An AG-UI answer from agent serve.');
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      result: { answer: 'An AG-UI answer from agent serve.' },
    });
    expect(JSON.stringify(bed.server.requests[0].body.messages)).toContain('hello from an AG-UI client');

    // One set of sessions behind both endpoints: the thread is the chat of the same id, its owner's only.
    const api = agUi.replace(/\/api\/ag-ui$/, '/api/chat');
    const asOwner = await fetch(`${api}/${threadId}`, { headers: { 'x-user': 'alice' } });
    expect(asOwner.status).toBe(200);
    expect(JSON.stringify(await asOwner.json())).toContain('An AG-UI answer from agent serve.');
    expect((await fetch(`${api}/${threadId}`, { headers: { 'x-user': 'bob' } })).status).toBe(404);
    expect((await post({ 'x-user': 'bob' })).status).toBe(404);
  } finally {
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  expect(bed.server.refusals).toEqual([]);
});
