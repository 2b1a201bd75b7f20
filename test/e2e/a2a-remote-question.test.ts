import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageRequest, TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { createA2AHandler } from '../../a2a/a2a-handler';
import { createAgentRegistry } from '../../agents/registry';
import { toNodeListener } from '../../serve/http/node-listener';
import { remoteA2AAgent } from '../../a2a/remote-agent';
import { defineAgent } from '../../agents/define-agent';
import { ApprovalPrompter } from '../../cli/approval-prompts';
import { approvalDecidedLine } from '../../cli/event-lines';
import type { StreamEvent } from '../../core/stream-events';
import { agentWorkflowType, statusQuery, streamTailQuery } from '../../workflows/definitions';
import { startRemoteA2AAgent, type RemoteScript } from '../support/a2a-remote-agent';
import { activityCalls } from '../support/activity-calls';
import { openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { createTestWorker, resolved, runAgent, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { toolResultsSent } from '../support/wire-results';

// A remote A2A agent (@a2a-js/sdk's own server, test/support/a2a-remote-agent.ts) whose task asks for input: the
// question comes to the run's person through its approvals, their answer goes to the same remote task, and the call
// goes on from there. The worker that asked is gone before the person answers: the question is in the run's history.

const bed = useTestBed();
let remote: Awaited<ReturnType<typeof startRemoteA2AAgent>>;
let script: () => RemoteScript = () => ({ answer: 'unset' });
beforeAll(async () => (remote = await startRemoteA2AAgent(() => script())));
afterAll(() => remote?.close());

it("puts a remote agent's input-required to the person and answers that same remote task, across a worker's end", async () => {
  // The remote is untrusted: its question tries to hide text behind a right-to-left override.
  script = () => ({ ask: 'Which day?\u202E yadnoM', answer: 'Booked' });
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_book', name: 'remote_helper', arguments: { message: 'Book a train.' } }] }),
    openaiReply({ content: 'Your train is booked for Tuesday.' }),
  );
  const taskQueue = uniqueTaskQueue('a2a-question');
  const workerOptions = {
    taskQueue,
    env: bed.server.providerEnv,
    tools: [remoteA2AAgent({ name: 'remote_helper', description: 'Books trains.', cardUrl: remote.cardUrl })],
    agents: [defineAgent({ name: 'booker', description: 'Books.', model: 'openai:gpt-4o-mini', tools: ['remote_helper'] })],
  };
  const handle = await bed.environment.client.workflow.start(agentWorkflowType, {
    taskQueue,
    workflowId: `a2a-question-${randomUUID()}`,
    args: [resolved({ prompt: 'Book me a train.', agent: 'booker', workspace: bed.workspace })],
  });
  const first = await createTestWorker(bed.environment, workerOptions);
  const [question] = await first.runUntil(() =>
    waitFor('the remote question asked', async () => {
      const { pendingApprovals } = await handle.query(statusQuery);
      return pendingApprovals.length === 1 && pendingApprovals;
    }),
  );
  expect(question).toMatchObject({ id: 'call_book', tool: 'remote_helper', rule: 'tool_question' });
  expect(question.description).toContain('remote_helper asks: Which day?\\u{202E} yadnoM');

  // The person at the terminal (the CLI's own prompter) reads the question and types their answer.
  const prompts: string[] = [];
  const printed: string[] = [];
  const prompter = new ApprovalPrompter(
    handle,
    async (prompt) => {
      prompts.push(prompt);
      return 'Tuesday';
    },
    (line) => printed.push(line),
  );
  const second = await createTestWorker(bed.environment, workerOptions);
  const { result, tail } = await second.runUntil(async () => {
    prompter.requested(question);
    const ended = await handle.result();
    // Read while a worker answers queries.
    return { result: ended, tail: await handle.query(streamTailQuery, 0) };
  });
  expect(prompts).toEqual([
    expect.stringMatching(/remote_helper asks: Which day\?\\u\{202E\} yadnoM\nyour answer \(an empty line declines\):$/),
  ]);
  expect(printed).toContain('approved remote_helper asks: Which day?\\u{202E} yadnoM (call call_book) with your answer');
  expect(result).toMatchObject({ status: 'completed', answer: 'Your train is booked for Tuesday.' });
  expect(toolResultsSent(bed.server.requests[1])).toEqual([{ id: 'call_book', content: 'Booked (you said: Tuesday)' }]);
  // The run's story says the question was answered, not that the call's arguments were edited.
  const decided = tail.events
    .map(({ event }) => event)
    .filter((event): event is Extract<StreamEvent, { type: 'approval_decided' }> => event.type === 'approval_decided');
  expect(decided).toEqual([{ type: 'approval_decided', id: 'call_book', approved: true, rule: 'tool_question' }]);
  expect(approvalDecidedLine(decided[0])).toBe('  ✓ answered: call call_book');
  // One remote task: the first message started it, the answer went on with it.
  expect(remote.executions).toHaveLength(2);
  expect(new Set(remote.taskIds).size).toBe(1);
  const calls = activityCalls(await fetchEvents(bed.environment.client, handle.workflowId)).filter(
    (call) => call.activityType === 'remote_helper',
  );
  expect(calls.map((call) => call.result)).toEqual([
    { question: expect.objectContaining({ resume: { remoteTaskId: remote.taskIds[0] } }) },
    'Booked (you said: Tuesday)',
  ]);
});

it('gives the model a failed remote task as an error result after one attempt of the five it may have', async () => {
  script = () => ({ fail: 'no trains on Sundays', answer: 'unused' });
  remote.executions.length = 0;
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_sunday', name: 'remote_helper', arguments: { message: 'Book Sunday.' } }] }),
    openaiReply({ content: 'No trains on Sundays.' }),
  );
  const taskQueue = uniqueTaskQueue('a2a-failed');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    tools: [remoteA2AAgent({ name: 'remote_helper', description: 'Books trains.', cardUrl: remote.cardUrl })],
    agents: [defineAgent({ name: 'booker', description: 'Books.', model: 'openai:gpt-4o-mini', tools: ['remote_helper'] })],
  });
  const { result, workflowId } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, { prompt: 'Book Sunday.', agent: 'booker', workspace: bed.workspace }),
  );
  expect(result).toMatchObject({ status: 'completed', answer: 'No trains on Sundays.' });
  expect(toolResultsSent(bed.server.requests.at(-1)!)).toEqual([
    {
      id: 'call_sunday',
      content: 'Error: the remote agent remote_helper ended its task TASK_STATE_FAILED: no trains on Sundays',
    },
  ]);
  // Not retryable: the one attempt's failure is the call's, and the remote was asked once.
  const [call] = activityCalls(await fetchEvents(bed.environment.client, workflowId)).filter(
    (activity) => activity.activityType === 'remote_helper',
  );
  expect(call).toMatchObject({ attempt: 1, failure: { type: 'ToolRefused' } });
  expect(remote.executions).toHaveLength(1);
});

it("relays a remote agent's question to our own A2A caller, whose words answer it, through both SDKs", async () => {
  script = () => ({ ask: 'Which day?', answer: 'Booked' });
  remote.executions.length = 0;
  remote.taskIds.length = 0;
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_relay', name: 'remote_helper', arguments: { message: 'Book a train.' } }] }),
    openaiReply({ content: 'Booked for Tuesday.' }),
  );
  const taskQueue = uniqueTaskQueue('a2a-relay');
  const tools = [remoteA2AAgent({ name: 'remote_helper', description: 'Books trains.', cardUrl: remote.cardUrl })];
  const booker = defineAgent({ name: 'booker', description: 'Books.', model: 'openai:gpt-4o-mini', tools: ['remote_helper'] });
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv, tools, agents: [booker] });
  // Our A2A server (a2a/) in this process, for the SDK's client: the caller is the run's person.
  const served = http.createServer(
    toNodeListener(
      createA2AHandler({
        client: bed.environment.client,
        taskQueue,
        registry: createAgentRegistry({ agents: [booker], tools }),
        agents: ['booker'],
        inputFor: () => ({ agent: 'booker', workspace: bed.workspace }),
        authorize: () => 'local',
      }),
    ),
  );
  await new Promise<void>((resolve) => served.listen(0, '127.0.0.1', resolve));
  try {
    const origin = `http://127.0.0.1:${(served.address() as AddressInfo).port}`;
    const caller = await new ClientFactory({
      ...ClientFactoryOptions.default,
      transports: [new JsonRpcTransportFactory({})],
    }).createFromUrl(origin, '/a2a/booker/.well-known/agent-card.json');
    const send = (text: string, taskId?: string) =>
      caller.sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: `m-${randomUUID()}`, role: 'ROLE_USER', parts: [{ text }], ...(taskId && { taskId }) },
        }),
      ) as Promise<Task>;
    const textOf = (task: Task) =>
      (task.status?.message?.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
    const done = await worker.runUntil(async () => {
      const asking = await send('Book me a train.');
      expect(asking.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(textOf(asking)).toBe('remote_helper asks: Which day?\nAnswer with your reply; "decline" declines.');
      return send('Tuesday', asking.id);
    });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(toolResultsSent(bed.server.requests.at(-1)!)).toEqual([{ id: 'call_relay', content: 'Booked (you said: Tuesday)' }]);
    expect(new Set(remote.taskIds).size).toBe(1);
  } finally {
    served.closeAllConnections();
    await new Promise<void>((resolve) => served.close(() => resolve()));
  }
});
