import { openaiReply } from '../support/fake-model-server';
import { useServedChat } from './served-chat';
import { chat, newChatId, textOf, userMessage } from './chat-client';

// What an attacker can send: a model writing frame breakers into its text and tool call ids, and clients sending
// bodies that are not what the protocol says.

const maxBodyBytes = 4096;
const web = useServedChat('web-framing', ({ workspace }) => ({
  input: { model: 'openai:gpt-4o-mini', tools: ['list_directory'], workspace },
  maxBodyBytes,
}));
const { bed } = web;

const breaker = '\n\ndata: {"type":"finish"}\n\nevent: x\r\ndata: [DONE]\r\r\u2028\u2029 id: 1';

it('model text and tool call ids that try to break the SSE framing arrive as text, and add no chunk', async () => {
  const hostileId = `call_${breaker}`;
  const hostileText = `Here.${breaker} The end.`;
  bed.server.enqueue(
    {
      ...openaiReply({ content: hostileText, toolCalls: [{ id: hostileId, name: 'list_directory', arguments: {} }] }),
      stream: { intervalMs: 10 },
    },
    openaiReply({ content: `After the tool.${breaker}` }),
  );
  const id = newChatId();
  const { chunks, invalid, message } = await chat(web.served.api, 'alice', id, [userMessage('go')]);
  expect(invalid).toEqual([]);
  expect(textOf(message)).toBe(`${hostileText}After the tool.${breaker}`);
  expect(chunks.filter((chunk) => chunk.type === 'finish')).toHaveLength(1);
  expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  const tool = message.parts.find((part) => part.type === 'tool-list_directory');
  // The workflow gives tool calls ids of its own (core/call-ids.ts): the model's id never reaches a frame.
  expect(tool).toMatchObject({ state: 'output-available' });
  expect(tool!.toolCallId).toMatch(/^[A-Za-z0-9_]+$/);

  // The raw frames of the next turn: every line is a `data:` line of one JSON object, or [DONE], or blank.
  bed.server.enqueue(openaiReply({ content: breaker }));
  const raw = await fetch(web.served.api, {
    method: 'POST',
    headers: { 'x-user': 'alice', 'content-type': 'application/json' },
    body: JSON.stringify({ id, messages: [userMessage(`again${breaker}`)], trigger: 'submit-message' }),
  });
  expect(raw.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
  expect(raw.headers.get('content-type')).toBe('text/event-stream');
  const text = await raw.text();
  const lines = text.split(/\r\n|\r|\n/);
  for (const line of lines) {
    if (line === '' || line === 'data: [DONE]') continue;
    expect(line.startsWith('data: ')).toBe(true);
    expect(() => JSON.parse(line.slice('data: '.length)) as unknown).not.toThrow();
  }
  expect(lines.filter((line) => line === 'data: [DONE]')).toHaveLength(1);
  expect(text).not.toContain('\u2028');
  // The user's own breaker reached the model as text.
  expect(JSON.stringify(bed.server.requests.at(-1)!.body.messages)).toContain(JSON.stringify(`again${breaker}`).slice(1, -1));
});

it('bad requests get a clear 4xx with a JSON error, and nothing reaches a session or the model', async () => {
  const id = newChatId();
  const post = (body: BodyInit, headers: Record<string, string> = { 'x-user': 'alice' }, init: RequestInit = {}) =>
    fetch(web.served.api, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, ...init });
  const valid = { id, messages: [userMessage('hello')], trigger: 'submit-message' };
  // A body over the limit sent chunked, with no Content-Length to trust: counted as it comes.
  const bigChunks = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let index = 0; index < 8; index++) controller.enqueue(new TextEncoder().encode(' '.repeat(1024)));
      controller.close();
    },
  });
  const cases: Array<[Promise<Response>, number, RegExp]> = [
    [post('{"id": "x", "messages": ['), 400, /not JSON/],
    [post(JSON.stringify({ id })), 400, /messages must be a non-empty array/],
    [post(JSON.stringify({ ...valid, id: '../etc' })), 400, /chat id/],
    [post(JSON.stringify({ ...valid, messages: [userMessage('   ')] })), 400, /no text/],
    [post(JSON.stringify({ ...valid, trigger: 'regenerate-message' })), 400, /regenerat/],
    [post(JSON.stringify(valid), {}), 401, /not signed in/],
    [post(bigChunks, { 'x-user': 'alice' }, { duplex: 'half' } as RequestInit), 413, /over 4096 bytes/],
    [post(JSON.stringify({ ...valid, pad: 'x'.repeat(maxBodyBytes) })), 413, /over 4096 bytes/],
    [fetch(web.served.api, { headers: { 'x-user': 'alice' } }), 405, /POST only/],
    [fetch(`${web.served.api}/${id}/stream`, { method: 'DELETE', headers: { 'x-user': 'alice' } }), 405, /GET only/],
    [fetch(`${web.served.base}/elsewhere`, { headers: { 'x-user': 'alice' } }), 404, /no such route/],
  ];
  for (const [answer, status, error] of cases) {
    const response = await answer;
    expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status, type: 'application/json' });
    expect(((await response.json()) as { error: string }).error).toMatch(error);
  }
  expect(bed.server.requests).toHaveLength(0);
  // Nothing was lost: the same chat then works.
  bed.server.enqueue(openaiReply({ content: 'Hello.' }));
  expect(textOf((await chat(web.served.api, 'alice', id, [userMessage('hello')])).message)).toBe('Hello.');
});
