import { fetchEvents } from '../support/history';
import { anthropicReply, openaiReply } from '../support/fake-model-server';
import { userFromHeader, useServedChat } from './served-chat';
import { chat, newChatId, resume, serveHandler, textOf, userMessage } from './chat-client';

// The useChat endpoint end to end: the real dev server, a worker, the strict fake model server, the handler on
// node:http, and `ai`'s own DefaultChatTransport as the browser's client.

const web = useServedChat('web-chat', ({ workspace }) => ({
  input: { model: 'openai:gpt-4o-mini', tools: ['list_directory'], workspace },
}));
const { bed, taskQueue } = web;

it('streams a turn as the UI message stream: the text as it is written, usage as data parts, then finish', async () => {
  const answer = 'The quick brown fox jumps over the lazy dog, and then it naps in the warm afternoon sun.';
  bed.server.enqueue({ ...openaiReply({ content: answer }), stream: { intervalMs: 30 } });
  const id = newChatId();
  const { chunks, invalid, message } = await chat(web.served.api, 'alice', id, [userMessage('tell me about the fox')]);
  // Every chunk is one `ai`'s own schema accepts (DefaultChatTransport checked them too on the way).
  expect(invalid).toEqual([]);
  expect(textOf(message)).toBe(answer);
  expect(message.id).toBe('turn-1');
  const types = chunks.map((chunk) => chunk.type);
  expect(types[0]).toBe('start');
  expect(types.at(-1)).toBe('finish');
  // Streamed: more than one delta, each a piece of the answer in order.
  expect(types.filter((type) => type === 'text-delta').length).toBeGreaterThan(1);
  expect(chunks.find((chunk) => chunk.type === 'finish')).toMatchObject({ finishReason: 'stop' });
  const usage = chunks.filter((chunk) => chunk.type === 'data-usage');
  expect(usage.length).toBeGreaterThan(0);
  expect(usage[0].data).toMatchObject({ inputTokens: 100 });
  // The model received the message the browser sent.
  expect(JSON.stringify(bed.server.requests[0].body.messages)).toContain('tell me about the fox');
});

it('shows a tool call with its output, in the same assistant message, and answers the second message in the same session', async () => {
  bed.server.enqueue(
    openaiReply({ content: 'Let me look.', toolCalls: [{ id: 'call_ls', name: 'list_directory', arguments: { path: '.' } }] }),
    openaiReply({ content: 'The folder is empty.' }),
    openaiReply({ content: 'Second answer.' }),
  );
  const id = newChatId();
  const first = await chat(web.served.api, 'alice', id, [userMessage('what is here?')]);
  const tool = first.message.parts.find((part) => part.type === 'tool-list_directory') as
    { toolCallId: string; state: string } | undefined;
  expect(tool).toMatchObject({ toolCallId: 'call_ls', state: 'output-available' });
  expect(textOf(first.message)).toBe('Let me look.The folder is empty.');
  const second = await chat(web.served.api, 'alice', id, [userMessage('what is here?'), first.message, userMessage('and now?')]);
  expect(second.message.id).toBe('turn-2');
  expect(textOf(second.message)).toBe('Second answer.');
  // One session: the third model call carried the whole conversation, the tool result included.
  const sent = JSON.stringify(bed.server.requests[2].body.messages);
  expect(sent).toContain('what is here?');
  expect(sent).toContain('and now?');
  expect(sent).toContain('call_ls');
  // The conversation reads back as UIMessages with the stream's ids.
  const read = await fetch(`${web.served.api}/${id}`, { headers: { 'x-user': 'alice' } });
  expect(read.status).toBe(200);
  const body = (await read.json()) as { messages: Array<{ id: string; role: string }>; turnInProgress: boolean };
  expect(body.turnInProgress).toBe(false);
  expect(body.messages.map((message) => `${message.role}:${message.id}`)).toEqual([
    'user:user-1',
    'assistant:turn-1',
    'user:user-2',
    'assistant:turn-2',
  ]);
});

it('answers resume with 204 while no turn runs, and an idle session grows no history', async () => {
  bed.server.enqueue(openaiReply({ content: 'Done.' }));
  const id = newChatId();
  await chat(web.served.api, 'alice', id, [userMessage('hello')]);
  expect(await resume(web.served.api, 'alice', id)).toBeNull();
  const before = (await fetchEvents(bed.environment.client, `chat-${id}`)).length;
  // Readers that come and go while nothing runs: queries only, never an Update in the run's history.
  for (let index = 0; index < 3; index++) {
    expect((await fetch(`${web.served.api}/${id}/stream`, { headers: { 'x-user': 'alice' } })).status).toBe(204);
    expect((await fetch(`${web.served.api}/${id}`, { headers: { 'x-user': 'alice' } })).status).toBe(200);
  }
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect((await fetchEvents(bed.environment.client, `chat-${id}`)).length).toBe(before);
});

it("gives another principal 404 for every route of someone else's chat, and the same for an unknown id", async () => {
  bed.server.enqueue(openaiReply({ content: 'For alice only.' }));
  const id = newChatId();
  await chat(web.served.api, 'alice', id, [userMessage('hello')]);
  const asBob = { 'x-user': 'bob', 'content-type': 'application/json' };
  const post = (messages: unknown) =>
    fetch(web.served.api, { method: 'POST', headers: asBob, body: JSON.stringify({ id, messages, trigger: 'submit-message' }) });
  const approval = {
    id: 'turn-1',
    role: 'assistant',
    parts: [
      { type: 'tool-write_file', toolCallId: 'c', state: 'approval-responded', input: {}, approval: { id: 'c', approved: true } },
    ],
  };
  const answers = await Promise.all([
    fetch(`${web.served.api}/${id}`, { headers: asBob }),
    fetch(`${web.served.api}/${id}/stream`, { headers: asBob }),
    fetch(`${web.served.api}/${id}/stop`, { method: 'POST', headers: asBob }),
    post([userMessage('let me in')]),
    post([approval]),
    fetch(`${web.served.api}/nosuchchat`, { headers: { 'x-user': 'alice' } }),
  ]);
  expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404, 404]);
  // Bob's message reached no model and no session.
  expect(bed.server.requests).toHaveLength(1);
  expect(JSON.stringify(bed.server.requests)).not.toContain('let me in');
});

it("shows a tool card's input as the arguments the model sent, and the model's thinking as reasoning parts (Anthropic, streamed)", async () => {
  const thinking = await serveHandler({
    client: bed.environment.client,
    taskQueue,
    authorize: userFromHeader,
    input: {
      model: 'anthropic:claude-sonnet-4-6',
      modelSettings: { thinkingBudget: 2048 },
      tools: ['list_directory'],
      workspace: bed.workspace,
    },
  });
  try {
    const args = { path: '.', note: 'say "hi" <b>twice</b>' };
    const firstThought = 'The user wants to see the folder, so I will list it now.';
    bed.server.enqueue(
      {
        ...anthropicReply({
          thinking: [firstThought],
          text: 'Let me look.',
          toolCalls: [{ id: 'toolu_ls', name: 'list_directory', arguments: args }],
        }),
        stream: { intervalMs: 60 },
      },
      // Redacted thinking beside readable thinking: only the readable text is shown.
      anthropicReply({ thinking: [{ redacted: true }, 'It is empty.'], text: 'The folder is empty.' }),
    );
    const { chunks, invalid, message } = await chat(thinking.api, 'alice', newChatId(), [userMessage('what is here?')]);
    expect(invalid).toEqual([]);
    const tool = message.parts.find((part) => part.type === 'tool-list_directory');
    expect(tool).toMatchObject({ state: 'output-available', input: args });
    const reasoning = message.parts.filter((part) => part.type === 'reasoning').map((part) => part.text);
    expect(reasoning).toEqual([firstThought, 'It is empty.']);
    // Streamed as it was written (more than one delta), and what was streamed was what the model answered (no reset).
    expect(chunks.filter((chunk) => chunk.type === 'reasoning-delta').length).toBeGreaterThan(2);
    expect(chunks.some((chunk) => chunk.type === 'reset-step')).toBe(false);
    expect(textOf(message)).toBe('Let me look.The folder is empty.');
  } finally {
    await thinking.close();
  }
});
