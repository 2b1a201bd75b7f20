import { endSessionSignal } from '../../workflows/definitions';
import { openaiReply } from '../support/fake-model-server';
import { waitFor } from '../support/wait-for';
import { useServedChat } from './served-chat';
import { chat, newChatId, textOf, userMessage } from './chat-client';

// A hostile co-user: bob, signed in to the same app as alice, tries to read, post into and take over her chats.
// Two handler instances (two createChatHandler on two node:http servers, as two replicas of an app would be) share
// one Temporal server and one worker; the browser's client is `ai`'s own DefaultChatTransport. Each session
// continues as new after every model call, so that ownership is tried across continue-as-new too.

const { bed, instances } = useServedChat(
  'web-co-user',
  ({ workspace }) => ({
    input: {
      model: 'openai:gpt-4o-mini',
      workspace,
      session: { idleTimeoutSeconds: 600 },
      continueAsNewAfterModelCalls: 1,
    },
  }),
  2,
);

const [first, second] = [() => instances[0].api, () => instances[1].api];
const handleOf = (chatId: string, runId?: string) => bed.environment.client.workflow.getHandle(`chat-${chatId}`, runId);

async function read(api: string, user: string, chatId: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${api}/${chatId}`, { headers: { 'x-user': user } });
  return { status: response.status, text: await response.text() };
}

/** What `ai`'s transport says when the server refuses a message: the error, with the response's status and words. */
async function refusal(api: string, user: string, chatId: string, text: string): Promise<string> {
  const answer = await chat(api, user, chatId, [userMessage(text)]).then(
    () => 'answered',
    (error: Error) => error.message,
  );
  expect(answer).not.toBe('answered');
  return answer;
}

/** Waits until the session has continued as new at least once; the first run's id. */
async function continuedAsNew(chatId: string): Promise<string> {
  return waitFor(`chat ${chatId} to continue as new`, async () => {
    const description = await handleOf(chatId).describe();
    const firstRunId = description.raw.workflowExecutionInfo?.firstRunId;
    return description.status.name === 'RUNNING' && firstRunId && firstRunId !== description.runId ? firstRunId : undefined;
  });
}

it("gives bob 404 for alice's chat through either instance, and alice her chat through both", async () => {
  bed.server.enqueue(openaiReply({ content: 'ALICE-PRIVATE-PAYROLL' }));
  const id = newChatId();
  const started = await chat(first(), 'alice', id, [userMessage('my payroll')]);
  expect(textOf(started.message)).toBe('ALICE-PRIVATE-PAYROLL');
  for (const api of [first(), second()]) {
    const asBob = await read(api, 'bob', id);
    expect(asBob.status).toBe(404);
    expect(asBob.text).not.toContain('PAYROLL');
    expect(await refusal(api, 'bob', id, 'BOB-WAS-HERE')).toContain('no such chat');
    const asAlice = await read(api, 'alice', id);
    expect(asAlice.status).toBe(200);
    expect(asAlice.text).toContain('ALICE-PRIVATE-PAYROLL');
  }
  // Bob's messages reached no session and no model.
  expect(bed.server.requests).toHaveLength(1);
  expect(JSON.stringify(bed.server.requests)).not.toContain('BOB-WAS-HERE');
});

it("keeps an ended chat's id alice's: bob cannot start it again on either instance, and alice is told it has ended", async () => {
  bed.server.enqueue(openaiReply({ content: 'ALICE-ONLY' }));
  const id = newChatId();
  await chat(first(), 'alice', id, [userMessage('hello')]);
  await handleOf(id).signal(endSessionSignal);
  await waitFor('the chat to end', async () => (await handleOf(id).describe()).status.name === 'COMPLETED');

  for (const api of [second(), first()]) {
    expect(await refusal(api, 'bob', id, 'BOB-TAKES-OVER')).toContain('no such chat');
    expect((await read(api, 'bob', id)).status).toBe(404);
  }
  // Nothing started under the id: the chat is still alice's, as she left it, on both instances.
  expect((await handleOf(id).describe()).status.name).toBe('COMPLETED');
  for (const api of [first(), second()]) {
    const asAlice = await read(api, 'alice', id);
    expect(asAlice.status).toBe(200);
    expect(asAlice.text).toContain('ALICE-ONLY');
    expect(asAlice.text).not.toContain('BOB-TAKES-OVER');
    expect(await refusal(api, 'alice', id, 'once more')).toContain('this chat has ended; start a new one');
  }
  expect(JSON.stringify(bed.server.requests)).not.toContain('BOB-TAKES-OVER');
});

it('keeps the owner across continue-as-new: alice reads and posts through both instances, bob still gets 404', async () => {
  bed.server.enqueue(openaiReply({ content: 'First answer.' }), openaiReply({ content: 'Second answer.' }));
  const id = newChatId();
  await chat(first(), 'alice', id, [userMessage('first question')]);
  const firstRunId = await continuedAsNew(id);

  // The continued run carries the memo the chat started with, every key of it.
  const [started, continued] = await Promise.all([handleOf(id, firstRunId).describe(), handleOf(id).describe()]);
  expect(Object.keys(started.memo ?? {}).length).toBeGreaterThan(0);
  expect(continued.memo).toEqual(started.memo);

  for (const api of [first(), second()]) {
    const asAlice = await read(api, 'alice', id);
    expect(asAlice.status).toBe(200);
    expect(asAlice.text).toContain('First answer.');
    expect((await read(api, 'bob', id)).status).toBe(404);
  }
  const next = await chat(second(), 'alice', id, [userMessage('second question')]);
  expect(textOf(next.message)).toBe('Second answer.');
  expect(JSON.stringify(bed.server.requests[1].body.messages)).toContain('first question');
  for (const api of [first(), second()]) {
    expect(await refusal(api, 'bob', id, 'BOB-AFTER-CONTINUE')).toContain('no such chat');
  }
  expect(JSON.stringify(bed.server.requests)).not.toContain('BOB-AFTER-CONTINUE');
});
