import { defineAgent } from '../../agents/define-agent';
import { createAgentTestEnv, replayAgentHistories, scriptedModel, type AgentTestEnv } from '../../testing';

// durable-agent/testing against a server that is already running (here the dev server jest's global setup starts, as a
// user's CI would start one): a session ended by the test, and the replay helper reading that run from the server.

const greeter = defineAgent({
  name: 'greeter',
  description: 'Greets.',
  instructions: 'You are the greeter.',
  model: 'anthropic:claude-haiku-4-5',
});
const model = scriptedModel();
let env: AgentTestEnv;

beforeAll(async () => {
  env = await createAgentTestEnv({
    agents: [greeter],
    model,
    server: { address: process.env.TEST_TEMPORAL_ADDRESS! },
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
  });
});
afterAll(() => env?.shutdown());

it('runs a session on an existing server: each message answered in turn, ended by end()', async () => {
  model.reset(['Hello!', 'Goodbye!']);
  const session = await env.session();
  expect((await session.send('Hi')).answer).toBe('Hello!');
  expect((await session.send('Bye')).answer).toBe('Goodbye!');
  expect(await session.end()).toMatchObject({ status: 'ended', turns: 2, answer: 'Goodbye!', agent: 'greeter' });
  expect(model.requests.map((request) => request.messages.at(-1))).toEqual([
    { role: 'user', content: 'Hi' },
    { role: 'user', content: 'Bye' },
  ]);

  // The replay helper lists the run on the server by a visibility query and replays it.
  const runs = await replayAgentHistories(
    { client: env.client, query: `WorkflowId = '${session.workflowId}'` },
    { agents: [greeter], workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } },
  );
  expect(runs).toEqual([expect.objectContaining({ workflowId: session.workflowId, ok: true, source: expect.any(String) })]);
});
