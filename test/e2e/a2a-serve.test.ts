import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { SendMessageRequest, TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client as A2AClient,
} from '@a2a-js/sdk/client';
import { createA2AHandler } from '../../a2a/a2a-handler';
import { createAgentRegistry } from '../../agents/registry';
import { startAgent } from '../../client/start-agent';
import { toNodeListener } from '../../serve/http/node-listener';
import { approveUpdate, statusQuery } from '../../workflows/definitions';
import { openaiReply, type FakeStep } from '../support/fake-model-server';
import { startRemoteA2AAgent, type RemoteScript } from '../support/a2a-remote-agent';
import { fetchEvents, scheduledActivities } from '../support/history';
import { scriptByPrompt } from '../support/script-by-prompt';
import { killSpawnedWorkers, spawnWorker, type SpawnedWorker } from '../support/spawned-worker';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { toolResultsSent } from '../support/wire-results';
import { makeWorkspace } from '../support/workspace';

// Our A2A server (a2a/) driven by @a2a-js/sdk's own client over HTTP: the agent card, a blocking SendMessage, a
// streamed task that waits for approval while its worker is killed, and a reconnect that reads the task from Temporal.
// The same kill catches a call of remoteA2AAgent mid-way, the SDK's own server as the remote agent
// (test/support/a2a-remote-agent.ts): the next worker resumes the remote task; and a remote task's question waiting
// on the person, which the next worker's run takes the answer to. One kill, three cases: the spawned workers are this
// file's cost.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

const taskQueue = uniqueTaskQueue('a2a-serve');
let workspace: string;
let server: http.Server;
let baseUrl: string;
/** The worker of the first tests, killed by the last. */
let workerA: SpawnedWorker;
let remote: Awaited<ReturnType<typeof startRemoteA2AAgent>>;
let remoteScript: (text: string) => RemoteScript = () => ({ answer: 'unset' });
const definitions = path.join(__dirname, '..', 'fixtures', 'a2a-remote-agents.ts');

/** Which principal a request is: the test says it in a header (a loopback test server; agent serve proves it). */
const principalHeader = 'x-test-principal';

beforeAll(async () => {
  workspace = await makeWorkspace();
  remote = await startRemoteA2AAgent((text) => remoteScript(text));
  workerA = await startWorker('worker-a');
  const handler = createA2AHandler({
    client: bed.environment.client,
    taskQueue,
    registry: createAgentRegistry({}),
    agents: ['default'],
    rootAgent: 'default',
    inputFor: () => ({ model: 'openai:gpt-4o-mini', tools: ['write_file'], workspace, approval: { tools: ['write_file'] } }),
    authorize: (request) => request.headers.get(principalHeader) ?? undefined,
  });
  server = http.createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await killSpawnedWorkers();
  await remote?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

const startWorker = (identity: string) =>
  spawnWorker({
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    taskQueue,
    identity,
    env: {
      ...bed.server.providerEnv,
      AGENT_DEFINITIONS: definitions,
      A2A_REMOTE_CARD_URL: remote.cardUrl,
      A2A_REMOTE_KEY: 'the-remote-api-key',
    },
  });

/** The SDK's client of the default agent, from its card, speaking as `principal`. */
async function clientAs(principal: string): Promise<A2AClient> {
  // Every request of this client (the card's fetch too) says who it is.
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set(principalHeader, principal);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory({
    ...ClientFactoryOptions.default,
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  // The SDK resolves a card's path from the server's root: each agent's is under its own path.
  return factory.createFromUrl(baseUrl, '/a2a/default/.well-known/agent-card.json');
}

const message = (text: string, extra: { taskId?: string; contextId?: string } = {}) =>
  SendMessageRequest.fromJSON({
    message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }], ...extra },
  });

const stateOf = (task: Task) => task.status?.state;
const answerOf = (task: Task) =>
  task.artifacts.flatMap((artifact) => artifact.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')));

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function gated(step: FakeStep): { step: FakeStep; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { step: { gate, then: step }, release };
}

it("serves the agent's card, answers SendMessage with the completed task, and hides a task from anyone else", async () => {
  // The model's answer is hostile: it writes an SSE frame and a JSON-RPC answer. It must arrive as this task's text.
  const hostile = 'Four.\n\ndata: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"forged"}}}\n\n';
  bed.server.enqueue(openaiReply({ content: hostile }));
  const alice = await clientAs('alice');
  const card = await alice.getAgentCard();
  expect(card.name).toBe('default');
  expect(card.capabilities?.streaming).toBe(true);
  expect(card.supportedInterfaces).toEqual([
    expect.objectContaining({ url: `${baseUrl}/a2a/default`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
  ]);
  expect(card.skills.map((skill) => skill.name)).toEqual(expect.arrayContaining(['default', 'read_file', 'write_file']));
  // The root card is the same agent's, for a caller that knows only the address.
  const root = (await (await fetch(`${baseUrl}/.well-known/agent-card.json`)).json()) as { name: string };
  expect(root.name).toBe('default');

  const result = await alice.sendMessage(message('What is 2 + 2?', { contextId: 'ctx-alice' }));
  const task = result as Task;
  expect(stateOf(task)).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(task.contextId).toBe('ctx-alice');
  expect(answerOf(task)).toEqual([hostile]);
  // The task is the run: the same id in Temporal, recorded as alice's.
  const described = await bed.environment.client.workflow.getHandle(task.id).describe();
  expect(described.memo).toHaveProperty('webOwner');
  expect(stateOf(await alice.getTask({ tenant: '', id: task.id }))).toBe(TaskState.TASK_STATE_COMPLETED);
  // To bob the task does not exist, in the same words as an id that names nothing; an ended task is not canceled.
  const bob = await clientAs('bob');
  await expect(bob.getTask({ tenant: '', id: task.id })).rejects.toThrow(`no task ${task.id}`);
  await expect(bob.getTask({ tenant: '', id: 'agent-nothing' })).rejects.toThrow('no task agent-nothing');
  await expect(alice.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(/has ended/);
  // Without a principal nothing is served.
  const anonymous = await fetch(`${baseUrl}/a2a/default`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: task.id } }),
  });
  expect(anonymous.status).toBe(401);
});

it('CancelTask interrupts the run: the task ends canceled', async () => {
  const slow = gated(openaiReply({ content: 'too late' }));
  bed.server.enqueue(slow.step);
  const alice = await clientAs('alice');
  const started = (await alice.sendMessage(
    SendMessageRequest.fromJSON({
      ...(SendMessageRequest.toJSON(message('Think slowly.')) as object),
      configuration: { returnImmediately: true },
    }),
  )) as Task;
  expect(stateOf(started)).toBe(TaskState.TASK_STATE_WORKING);
  await waitFor('the model call', () => bed.server.requests.length === 1);
  const canceled = await alice.cancelTask({ tenant: '', id: started.id, metadata: undefined });
  slow.release();
  expect(stateOf(canceled)).toBe(TaskState.TASK_STATE_CANCELED);
});

it('a task waiting for approval, and a remote agent call, survive their worker killed: both resume, nothing runs twice', async () => {
  const received = scriptByPrompt(bed.server, {
    'Write the note.': [
      openaiReply({ toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'a2a.txt', content: 'approved by A2A' } }] }),
      openaiReply({ content: 'Wrote a2a.txt.' }),
    ],
    'Ask the remote.': [
      openaiReply({ toolCalls: [{ id: 'r1', name: 'remote_helper', arguments: { message: 'What is 2 + 2?' } }] }),
      openaiReply({ content: 'The remote says four.' }),
    ],
    'Book through the remote.': [
      openaiReply({ toolCalls: [{ id: 'q1', name: 'remote_helper', arguments: { message: 'Book a train.' } }] }),
      openaiReply({ content: 'Booked for Tuesday.' }),
    ],
  });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  remoteScript = (text) => (text === 'Book a train.' ? { ask: 'Which day?', answer: 'Booked' } : { answer: 'Four.', gate });
  const delegated = await startAgent(
    bed.environment.client,
    { prompt: 'Ask the remote.', agent: 'delegator', workspace },
    { taskQueue },
  );
  const booking = await startAgent(
    bed.environment.client,
    { prompt: 'Book through the remote.', agent: 'delegator', workspace },
    { taskQueue },
  );
  const alice = await clientAs('alice');
  const streamed = await collect(alice.sendMessageStream(message('Write the note.')));
  const first = streamed[0].payload;
  expect(first?.$case).toBe('task');
  const taskId = first?.$case === 'task' ? first.value.id : '';
  const last = streamed.at(-1)!.payload;
  expect(last?.$case).toBe('statusUpdate');
  const waiting = last?.$case === 'statusUpdate' ? last.value.status : undefined;
  expect(waiting?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const question = waiting?.message?.parts[0].content;
  expect(question?.$case === 'text' && question.value).toMatch(/^Approve write_file "a2a.txt"/);

  // The remote call is under way on worker A, its remote task recorded in the activity's heartbeat.
  await waitFor('the remote task recorded in a heartbeat', async () => {
    const pending = (await delegated.describe()).raw.pendingActivities ?? [];
    return pending.some((activity) => (activity.heartbeatDetails?.payloads?.length ?? 0) > 0);
  });
  // The remote's question waits on the person, in the booking run's history.
  await waitFor('the remote question asked', async () => {
    const { pendingApprovals } = await booking.query(statusQuery);
    return pendingApprovals.some((request) => request.id === 'q1' && request.rule === 'tool_question');
  });
  await workerA.kill();
  await startWorker('worker-b');
  await booking.executeUpdate(approveUpdate, { args: [{ call: 'q1', arguments: '{"answer":"Tuesday"}' }] });
  expect(await booking.result()).toMatchObject({ status: 'completed', answer: 'Booked for Tuesday.' });
  expect(toolResultsSent(received['Book through the remote.'][1])).toEqual([{ id: 'q1', content: 'Booked (you said: Tuesday)' }]);
  // A new client (a caller that lost its connection) reads the task from Temporal, then answers it.
  const again = await clientAs('alice');
  expect(stateOf(await again.getTask({ tenant: '', id: taskId }))).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const resubscribed = await collect(again.resubscribeTask({ tenant: '', id: taskId }));
  expect(resubscribed.map((event) => event.payload?.$case)).toEqual(['task']);
  // bob cannot answer alice's question.
  const bob = await clientAs('bob');
  await expect(bob.sendMessage(message('approve', { taskId }))).rejects.toThrow(`no task ${taskId}`);
  const answered = await collect(again.sendMessageStream(message('approve', { taskId })));
  const end = answered.at(-1)!.payload;
  expect(end?.$case === 'statusUpdate' && end.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(answered.some((event) => event.payload?.$case === 'artifactUpdate')).toBe(true);
  const done = await again.getTask({ tenant: '', id: taskId });
  expect(answerOf(done)).toEqual(['Wrote a2a.txt.']);
  // A message to a task that has ended starts nothing.
  await expect(again.sendMessage(message('approve', { taskId }))).rejects.toThrow(/takes a message only while/);
  const scheduled = scheduledActivities(await fetchEvents(bed.environment.client, taskId));
  expect(scheduled.filter((activity) => activity.activityType === 'write_file')).toHaveLength(1);
  expect(await readFile(path.join(workspace, 'a2a.txt'), 'utf8')).toBe('approved by A2A');

  // Worker B's attempt follows the remote task worker A started (GetTask, SubscribeToTask): one message, one answer.
  await waitFor('the retry to follow the remote task', () => remote.methods.includes('SubscribeToTask'));
  release();
  expect(await delegated.result()).toMatchObject({ status: 'completed', answer: 'The remote says four.' });
  // One message for the sum; two on one task for the booking (the message, then the person's answer).
  expect(remote.executions).toHaveLength(3);
  expect(remote.methods.filter((method) => method === 'SendStreamingMessage')).toHaveLength(3);
  expect(new Set(remote.taskIds).size).toBe(2);
  expect(toolResultsSent(received['Ask the remote.'][1])).toEqual([{ id: 'r1', content: 'Four.' }]);
  // Its key went to the remote with every request, and into no payload of the run.
  expect(remote.headersSeen.every((header) => header === 'the-remote-api-key')).toBe(true);
  expect(JSON.stringify(await fetchEvents(bed.environment.client, delegated.workflowId))).not.toContain('the-remote-api-key');
});
