import { randomUUID } from 'node:crypto';
import { defineAgent } from '../../agents/define-agent';
import { startAgent } from '../../client/start-agent';
import { ownerMemo } from '../../serve/http/run-owner';
import { createAgentTestEnv, scriptedModel, type AgentTestEnv } from '../../testing';
import { createEventHandler, eventWebhookToken } from '../../time/event-handler';
import { timeTools } from '../../time/time-tools';
import { interruptUpdate, messagesQuery, statusQuery } from '../../workflows/definitions';

// Events from outside through the web endpoint (time/event-handler.ts), on the real dev server: a webhook's token
// delivers to its one run, the owner may send, another principal is refused as if the run did not exist, and an event
// the run does not wait for is refused with the run's reason. The wait's timer names why in the Web UI.

const waiter = defineAgent({
  name: 'waiter',
  description: 'Waits for payments.',
  instructions: 'You wait.',
  model: 'anthropic:claude-haiku-4-5',
  tools: timeTools,
});
const model = scriptedModel();
let env: AgentTestEnv;
const secret = 'webhook-secret-of-the-operator';

beforeAll(async () => {
  env = await createAgentTestEnv({
    agents: [waiter],
    model,
    server: { address: process.env.TEST_TEMPORAL_ADDRESS! },
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
  });
});
afterAll(() => env?.shutdown());

/** Events as a webhook or a browser posts them; the principal is the `x-user` header (as a test's authorize). */
function post(workflowId: string, event: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const handler = createEventHandler({
    client: env.client,
    webhookSecret: secret,
    authorize: (request) => request.headers.get('x-user') ?? undefined,
  });
  return handler(
    new Request(`http://localhost:3000/api/events/${encodeURIComponent(workflowId)}/${event}`, {
      method: 'POST',
      headers: { host: 'localhost:3000', 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }),
  );
}

it('delivers a webhook event to the run whose token it carries, and refuses others with their reason', async () => {
  model.reset([
    {
      toolCalls: [
        {
          id: 'pay',
          name: 'wait_for_event',
          arguments: { event: 'payment.received', timeoutSeconds: 3600, reason: 'invoice 7 unpaid' },
        },
      ],
    },
    (request) => `Got: ${request.messages.at(-1)!.content}`,
  ]);
  const workflowId = `time-events-${randomUUID()}`;
  const handle = await startAgent(
    env.client,
    { agent: 'waiter', prompt: 'Ship when paid.', workspace: env.workspace },
    { taskQueue: env.taskQueue, workflowId, memo: ownerMemo('alice') },
  );
  while (!(await handle.query(statusQuery)).waits?.length);
  expect((await handle.query(statusQuery)).waits).toEqual([
    expect.objectContaining({ callId: 'pay', event: 'payment.received', reason: 'invoice 7 unpaid' }),
  ]);

  // Another principal: the run does not exist for it. No credentials: 401. Another run's token: not this one's.
  expect((await post(workflowId, 'payment.received', {}, { 'x-user': 'mallory' })).status).toBe(404);
  expect((await post(workflowId, 'payment.received', {})).status).toBe(401);
  const otherToken = eventWebhookToken(secret, 'some-other-run');
  expect((await post(workflowId, 'payment.received', {}, { authorization: `Bearer ${otherToken}` })).status).toBe(404);
  // The owner, for an event the run does not wait for: refused with the run's reason.
  const wrong = await post(workflowId, 'refund.requested', {}, { 'x-user': 'alice' });
  expect(wrong.status).toBe(409);
  expect(await wrong.json()).toEqual({
    error: expect.stringContaining('this run waits for no event "refund.requested"; it waits for: payment.received'),
  });

  const token = eventWebhookToken(secret, workflowId);
  const delivered = await post(
    workflowId,
    'payment.received',
    { amount: 42 },
    { authorization: `Bearer ${token}`, 'idempotency-key': 'evt_1' },
  );
  expect(delivered.status).toBe(200);
  expect(await delivered.json()).toEqual({ workflowId, event: 'payment.received', callId: 'pay' });
  const result = await handle.result();
  expect(result.status).toBe('completed');
  expect(JSON.parse(result.answer.slice('Got: '.length))).toMatchObject({ event: 'payment.received', payload: { amount: 42 } });

  // The timer the wait set is named in the Web UI by why it waits.
  const events = (await handle.fetchHistory()).events ?? [];
  const timer = events.find((event) => event.timerStartedEventAttributes);
  expect(Buffer.from(timer!.userMetadata!.summary!.data!).toString()).toContain('wait for event payment.received until');
  expect(Buffer.from(timer!.userMetadata!.summary!.data!).toString()).toContain('invoice 7 unpaid');
});

it('ends a wait at once when the turn is interrupted: the call is not run, and the run says so', async () => {
  model.reset([{ toolCalls: [{ id: 'nap', name: 'sleep', arguments: { seconds: 600_000, reason: 'wait almost a week' } }] }]);
  const handle = await startAgent(
    env.client,
    { agent: 'waiter', prompt: 'Wait.', workspace: env.workspace },
    { taskQueue: env.taskQueue, workflowId: `time-interrupt-${randomUUID()}` },
  );
  while (!(await handle.query(statusQuery)).waits?.length);
  await handle.executeUpdate(interruptUpdate);
  expect(await handle.result()).toMatchObject({ status: 'interrupted' });
  const messages = await handle.query(messagesQuery);
  expect(messages.at(-1)).toMatchObject({
    role: 'tool',
    toolCallId: 'nap',
    isError: true,
    content: expect.stringContaining('not run'),
  });
});
