import path from 'node:path';
import { HttpAgent, type Message } from '@ag-ui/client';
import { openaiReply } from '../support/fake-model-server';
import { waitFor } from '../support/wait-for';
import { fileExists } from '../support/workspace';
import { useServedChat } from './served-chat';
import { chat, newChatId, textOf, userMessage, type UiMessage } from './chat-client';

// Issue 29's "every client sees every answer", through clients nobody here wrote: the AI SDK's DefaultChatTransport
// (useChat's) and @ag-ui/client's HttpAgent (CopilotKit's), against the handlers on node:http, with a worker and the
// strict fake model. Both endpoints go through one request flow (web/request-flow.ts): the same refusals in both.

const web = useServedChat('every-client', ({ workspace }) => ({
  input: {
    model: 'openai:gpt-4o-mini',
    tools: ['write_file'],
    workspace,
    approval: { tools: ['write_file'], timeoutSeconds: 600 },
  },
}));
const { bed } = web;

const sentence = 'The quick brown fox jumps over the lazy dog, and then it naps in the warm afternoon sun.';
const turnInProgress = async (id: string) =>
  (
    (await (await fetch(`${web.served.api}/${id}`, { headers: { 'x-user': 'alice' } })).json()) as {
      turnInProgress?: boolean;
    }
  ).turnInProgress === true;

// HttpAgent logs every refused run with console.error before it rethrows; the refusals here are expected.
beforeEach(() => jest.spyOn(console, 'error').mockImplementation(() => undefined));
afterEach(() => jest.restoreAllMocks());

/** An HttpAgent on a thread of its own, signed in as `user`, holding the messages it has been told. */
function agUiAgent(user: string, threadId = newChatId()): HttpAgent {
  return new HttpAgent({ url: web.served.agUi, headers: { 'x-user': user }, threadId });
}

it('a message sent while a turn streams gets its own answer on its own request, the first its own (item 6)', async () => {
  bed.server.enqueue(
    { ...openaiReply({ content: sentence }), stream: { intervalMs: 150 } },
    openaiReply({ content: 'The queued answer.' }),
  );
  const id = newChatId();
  const first = chat(web.served.api, 'alice', id, [userMessage('tell me about the fox')]);
  await waitFor('the first turn to stream', async () => bed.server.requests.length > 0 && (await turnInProgress(id)));
  const second = await chat(web.served.api, 'alice', id, [userMessage('tell me about the fox'), userMessage('and then?')]);
  expect(second.invalid).toEqual([]);
  expect(second.message.id).toBe('turn-2');
  expect(textOf(second.message)).toBe('The queued answer.');
  expect(second.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  const answered = await first;
  expect(answered.message.id).toBe('turn-1');
  expect(textOf(answered.message)).toBe(sentence);
  expect(JSON.stringify(bed.server.requests[1].body.messages)).toContain('and then?');
});

it('a message typed while an approval waits is refused at once with what to do; the approval then goes through (item 7)', async () => {
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'waits.txt', content: 'x\n' } }] }),
    openaiReply({ content: 'Written.' }),
  );
  const id = newChatId();
  const asked = await chat(web.served.api, 'alice', id, [userMessage('write it')]);
  expect(asked.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  // The transport's request is answered (not left open for the hour the approval may wait), in words for the person.
  await expect(
    chat(web.served.api, 'alice', id, [userMessage('write it'), asked.message, userMessage('hello?')]),
  ).rejects.toThrow(/waiting for your decision on write_file.*approve or deny it/);
  // The same refusal on the AG-UI side of the same session: the client must answer the interrupt first.
  const agent = agUiAgent('alice', id);
  agent.messages = [{ id: 'u-late', role: 'user', content: 'hello?' }];
  await expect(agent.runAgent({ runId: 'late' })).rejects.toThrow(/409.*waiting for your decision/);
  expect(bed.server.requests).toHaveLength(1);

  const responded = approve(asked.message, true);
  const done = await chat(web.served.api, 'alice', id, [userMessage('write it'), responded], {
    messageId: responded.id,
    lastMessage: responded,
  });
  expect(textOf(done.message)).toContain('Written.');
  expect(await fileExists(path.join(bed.workspace, 'waits.txt'))).toBe(true);
  expect(JSON.stringify(bed.server.requests.map((request) => request.body))).not.toContain('hello?');
  // The same decision again: nothing waits for it any more, and both endpoints say so the same way (one flow).
  await expect(
    chat(web.served.api, 'alice', id, [userMessage('write it'), responded], { messageId: responded.id, lastMessage: responded }),
  ).rejects.toThrow(/no approval waits for these answers/);
  await expect(
    agUiAgent('alice', id).runAgent({
      runId: 'stale',
      resume: [{ interruptId: 'call_w', status: 'resolved', payload: { approved: true } }],
    }),
  ).rejects.toThrow(/409.*no approval waits for these answers/);
});

it('AG-UI: denied and cancelled calls are started, with their arguments, before their results; a duplicate resume entry is one (items 8, 5)', async () => {
  bed.server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'call_deny', name: 'write_file', arguments: { path: 'denied.txt', content: 'no\n' } },
        { id: 'call_cancel', name: 'write_file', arguments: { path: 'cancelled.txt', content: 'no\n' } },
      ],
    }),
    openaiReply({ content: 'Nothing written.' }),
  );
  const agent = agUiAgent('alice');
  agent.messages = [{ id: 'u1', role: 'user', content: 'write two files' }];
  await agent.runAgent({ runId: 'run-1' });
  const interrupts = agent.pendingInterrupts;
  expect(interrupts.map((interrupt) => interrupt.toolCallId).sort()).toEqual(['call_cancel', 'call_deny']);
  const deny = { interruptId: 'call_deny', status: 'resolved' as const, payload: { approved: false, reason: 'not that one' } };
  await agent.runAgent({
    runId: 'run-2',
    resume: [deny, deny, { interruptId: 'call_cancel', status: 'cancelled' as const }],
  });
  expect(agent.pendingInterrupts).toEqual([]);
  const messages: Message[] = agent.messages;
  for (const [call, file] of [
    ['call_deny', 'denied.txt'],
    ['call_cancel', 'cancelled.txt'],
  ]) {
    // The tool message answers a call the client holds: an assistant message before it names the call and its arguments.
    const result = messages.findIndex((message) => message.role === 'tool' && message.toolCallId === call);
    const asking = messages.findIndex(
      (message) => message.role === 'assistant' && message.toolCalls?.some((toolCall) => toolCall.id === call),
    );
    expect({ call, result: result >= 0, asking: asking >= 0 && asking < result }).toEqual({ call, result: true, asking: true });
    const toolCall = (messages[asking] as Extract<Message, { role: 'assistant' }>).toolCalls!.find(({ id }) => id === call)!;
    expect(toolCall.function.name).toBe('write_file');
    expect(JSON.parse(toolCall.function.arguments)).toEqual({ path: file, content: 'no\n' });
    expect(await fileExists(path.join(bed.workspace, file))).toBe(false);
  }
  const answer = messages.filter((message) => message.role === 'assistant' && message.content).at(-1);
  expect(answer?.content).toBe('Nothing written.');
  expect(JSON.stringify(bed.server.requests[1].body.messages)).toContain('not that one');
});

it('refuses a thread id no workflow id can be, and an empty principal, in both protocols (item 5)', async () => {
  const tooLong = agUiAgent('alice', 'x'.repeat(5_000));
  tooLong.messages = [{ id: 'u1', role: 'user', content: 'hello' }];
  await expect(tooLong.runAgent()).rejects.toThrow(/400.*threadId must be 1 to 128/);
  const nobody = agUiAgent('');
  nobody.messages = [{ id: 'u1', role: 'user', content: 'hello' }];
  await expect(nobody.runAgent()).rejects.toThrow(/401.*not signed in/);
  await expect(chat(web.served.api, '', newChatId(), [userMessage('hello')])).rejects.toThrow(/not signed in/);
  expect(bed.server.requests).toHaveLength(0);
});

/** What useChat's addToolApprovalResponse makes of the message, then sends (sendAutomaticallyWhen). */
function approve(message: UiMessage, approved: boolean): UiMessage {
  return {
    ...message,
    parts: message.parts.map((part) =>
      part.state !== 'approval-requested'
        ? part
        : { ...part, state: 'approval-responded', approval: { ...(part.approval as object), approved } },
    ),
  };
}
