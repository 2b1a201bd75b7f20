import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { HttpAgent, type Message } from '@ag-ui/client';
import { openaiReply } from '../support/fake-model-server';
import { waitFor } from '../support/wait-for';
import { toolResultsSent } from '../support/wire-results';
import { fileExists } from '../support/workspace';
import { statusQuery } from '../../workflows/definitions';
import { useServedChat } from './served-chat';
import { chat, chatPage, newChatId, textOf, userMessage } from './chat-client';

// Issue 29's "every client sees every answer", through clients nobody here wrote: the AI SDK's DefaultChatTransport
// (useChat's) and @ag-ui/client's HttpAgent (CopilotKit's), against the handlers on node:http, with a worker and the
// strict fake model. Both endpoints go through one request flow (web/request-flow.ts): the same refusals in both.

const web = useServedChat('every-client', ({ workspace }) => ({
  input: {
    model: 'openai:gpt-4o-mini',
    tools: ['write_file'],
    workspace,
    approval: {
      tools: ['write_file'],
      timeoutSeconds: 600,
      // The operator's policy for every session: docs/policy.md's rule that keeps secrets with people.
      policy: {
        rules: [{ name: 'no-secrets', action: 'deny' as const, paths: ['**/.env'], reason: 'secrets stay with people' }],
      },
    },
  },
}));
const refusedBySecrets = `Error: not run: refused by the approval policy's rule "no-secrets": secrets stay with people`;
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
  // The first model call answers only once the second message is queued: on a busy machine, a turn that merely
  // streams slowly could end before the test saw it running.
  let answerFirstCall!: () => void;
  const firstCall = new Promise<void>((resolve) => (answerFirstCall = resolve));
  bed.server.enqueue(
    { gate: firstCall, then: { ...openaiReply({ content: sentence }), stream: { intervalMs: 150 } } },
    openaiReply({ content: 'The queued answer.' }),
  );
  const id = newChatId();
  const first = chat(web.served.api, 'alice', id, [userMessage('tell me about the fox')]);
  await waitFor('the first turn under way', async () => bed.server.requests.length > 0 && (await turnInProgress(id)));
  const asking = chat(web.served.api, 'alice', id, [userMessage('tell me about the fox'), userMessage('and then?')]);
  const session = bed.environment.client.workflow.getHandle(`chat-${id}`);
  await waitFor('the second message queued', async () => (await session.query(statusQuery)).queuedMessages === 1);
  answerFirstCall();
  const second = await asking;
  expect(second.invalid).toEqual([]);
  expect(second.message.id).toBe('turn-2');
  expect(textOf(second.message)).toBe('The queued answer.');
  expect(second.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  const answered = await first;
  expect(answered.message.id).toBe('turn-1');
  expect(textOf(answered.message)).toBe(sentence);
  expect(JSON.stringify(bed.server.requests[1].body.messages)).toContain('and then?');
});

it('a message typed while an approval waits denies the call with it as the reason and is answered; Approve then sends nothing (item 16)', async () => {
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'typed.txt', content: 'x\n' } }] }),
    openaiReply({ content: 'Nothing written. Hello!' }),
  );
  const page = await chatPage(web.served.api, 'alice', newChatId(), { first: 'write it', typed: 'hello?' });
  // The model read the denial, with the person's words as its reason, and then the message itself, in one request.
  expect(bed.server.requests).toHaveLength(2);
  expect(bed.server.requests[1].body.messages.slice(-2)).toEqual([
    { role: 'tool', tool_call_id: 'call_w', content: 'Error: not run: denied: the person declined and said "hello?"' },
    { role: 'user', content: 'hello?' },
  ]);
  // The message got its answer, a message of its own after the person's; the Approve pressed afterwards on the old
  // button sent nothing (the page's last message is that answer), and nothing ran.
  expect(page.error).toBeNull();
  expect(page.posts).toEqual([
    { status: 200, newest: 'user' },
    { status: 200, newest: 'user' },
  ]);
  const answer = page.messages.at(-1)!;
  expect(answer).toMatchObject({ role: 'assistant', id: 'turn-1-steered-1' });
  expect(textOf(answer)).toBe('Nothing written. Hello!');
  expect(await fileExists(path.join(bed.workspace, 'typed.txt'))).toBe(false);
});

it("the Approve of useChat's Chat runs the waiting call, once, and the turn goes on (item 16)", async () => {
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'approved.txt', content: 'x\n' } }] }),
    openaiReply({ content: 'Written.' }),
  );
  const page = await chatPage(web.served.api, 'alice', newChatId(), { first: 'write it' });
  expect(page.error).toBeNull();
  expect(page.posts).toEqual([
    { status: 200, newest: 'user' },
    { status: 200, newest: 'assistant' },
  ]);
  expect(textOf(page.messages.at(-1)!)).toContain('Written.');
  expect(await fileExists(path.join(bed.workspace, 'approved.txt'))).toBe(true);
  expect(bed.server.requests[1].body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_w' });
});

it('AG-UI: a message sent while an approval waits denies it with the message as the reason, and is answered (item 16)', async () => {
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'ag-ui.txt', content: 'x\n' } }] }),
    openaiReply({ content: 'Not written, as you said.' }),
  );
  const id = newChatId();
  const asking = agUiAgent('alice', id);
  asking.messages = [{ id: 'u1', role: 'user', content: 'write it' }];
  await asking.runAgent({ runId: 'asks' });
  expect(asking.pendingInterrupts.map((interrupt) => interrupt.toolCallId)).toEqual(['call_w']);
  const typing = agUiAgent('alice', id);
  typing.messages = [{ id: 'u2', role: 'user', content: 'no, stop' }];
  await typing.runAgent({ runId: 'typed' });
  const answer = typing.messages.filter((message) => message.role === 'assistant' && message.content).at(-1);
  expect(answer?.content).toBe('Not written, as you said.');
  expect(bed.server.requests[1].body.messages.slice(-2)).toEqual([
    { role: 'tool', tool_call_id: 'call_w', content: 'Error: not run: denied: the person declined and said "no, stop"' },
    { role: 'user', content: 'no, stop' },
  ]);
  expect(await fileExists(path.join(bed.workspace, 'ag-ui.txt'))).toBe(false);
  // The decision the person no longer needs to make: nothing waits for it, in either protocol.
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

it("useChat: a policy rule refuses a look-alike of .env unasked; the approval card's edits run in the model's place", async () => {
  bed.server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'call_env', name: 'write_file', arguments: { path: 'config/../.ENV', content: 'KEY=mine\n' } },
        { id: 'call_draft', name: 'write_file', arguments: { path: 'draft.txt', content: 'model\n' } },
      ],
    }),
    openaiReply({ content: 'Done.' }),
  );
  const id = newChatId();
  const asked = await chat(web.served.api, 'alice', id, [userMessage('write')]);
  expect(asked.invalid).toEqual([]);
  const request = asked.chunks.find((chunk) => chunk.type === 'tool-approval-request');
  expect(request).toMatchObject({ toolCallId: 'call_draft', approvalDescriptor: { rule: 'approveTools' } });
  // What addToolApprovalResponse makes of the message; the card's edits go in the request's body.
  const responded = {
    ...asked.message,
    parts: asked.message.parts.map((part) =>
      part.toolCallId === 'call_draft' && part.state === 'approval-requested'
        ? { ...part, state: 'approval-responded', approval: { ...(part.approval as object), approved: true } }
        : part,
    ),
  };
  const done = await chat(web.served.api, 'alice', id, [userMessage('write'), responded], {
    messageId: responded.id,
    lastMessage: responded,
    body: { editedArgs: { call_draft: { path: 'final.txt', content: 'person\n' } } },
  });
  expect(done.invalid).toEqual([]);
  expect(textOf(done.message)).toContain('Done.');
  expect(await readFile(path.join(bed.workspace, 'final.txt'), 'utf8')).toBe('person\n');
  expect(await fileExists(path.join(bed.workspace, 'draft.txt'))).toBe(false);
  expect(await fileExists(path.join(bed.workspace, '.ENV'))).toBe(false);
  expect(toolResultsSent(bed.server.requests[1])).toEqual([
    { id: 'call_env', content: refusedBySecrets },
    { id: 'call_draft', content: 'wrote 7 bytes to final.txt' },
  ]);
});

it('AG-UI: resume with editedArgs is decided again by the policy: an edit onto .env is refused', async () => {
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'agui-draft.txt', content: 'x\n' } }] }),
    openaiReply({ content: 'Refused, as it should be.' }),
  );
  const agent = agUiAgent('alice');
  agent.messages = [{ id: 'u1', role: 'user', content: 'write it' }];
  await agent.runAgent({ runId: 'asks' });
  const [interrupt] = agent.pendingInterrupts;
  expect(interrupt).toMatchObject({ toolCallId: 'call_w', metadata: { 'durable-agent': { rule: 'approveTools' } } });
  await agent.runAgent({
    runId: 'edited',
    resume: [
      { interruptId: 'call_w', status: 'resolved', payload: { approved: true, editedArgs: { path: './.Env', content: 'y\n' } } },
    ],
  });
  expect(agent.pendingInterrupts).toEqual([]);
  expect(toolResultsSent(bed.server.requests[1])).toEqual([{ id: 'call_w', content: refusedBySecrets }]);
  expect(await fileExists(path.join(bed.workspace, 'agui-draft.txt'))).toBe(false);
  expect(await fileExists(path.join(bed.workspace, '.Env'))).toBe(false);
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
