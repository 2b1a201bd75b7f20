import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { sendMessage } from '../../client/send-message';
import { startAgent } from '../../client/start-agent';
import { ConfigurationError } from '../../core/errors';
import { AgentPlugin } from '../../worker/agent-plugin';
import { createAgentWorker, type AgentWorkerOptions } from '../../worker/create-worker';
import { providerQueuesFromEnv, type ProviderQueues } from '../../worker/provider-queues';
import { anthropicReply, openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { killSpawnedWorkers, spawnWorker, type SpawnedWorker } from '../support/spawned-worker';
import { testWorkspaceRoot, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { RequestRateLimit } from '../support/wire-rules/rate-limit';

const EventType = temporal.api.enums.v1.EventType;
const TaskQueueType = temporal.api.enums.v1.TaskQueueType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const bed = useTestBed();
const model = 'openai:gpt-4o-mini';
// The fake provider lets 5 requests a second through and answers the rest 429. The shared limit is 1: the server
// divides it among the queue's 4 partitions (the tests' server keeps the default), each with a token bucket that lets
// at least one call through at once, so a second can see the rate plus 4 (docs/production.md, "How the server applies
// the limit"): 5 at most, the provider's limit.
const providerLimit = 5;
const sharedLimit = 1;
const runs = 16;

/** A worker of the tests' bundle on `taskQueue`, calling the fake provider, with these settings laid over. */
function quotaWorker(taskQueue: string, options: Partial<AgentWorkerOptions> = {}): Promise<Worker> {
  return createAgentWorker({
    connection: bed.environment.nativeConnection,
    namespace: bed.environment.namespace ?? 'default',
    taskQueue,
    env: bed.server.providerEnv,
    workspaceRoot: testWorkspaceRoot,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    ...options,
  });
}

/**
 * Two workers on one task queue, as two machines of a deployment with the same settings: one in this process, one
 * in a process of its own (the SDK allows one worker per task queue in a process) reading AGENT_PROVIDER_QUEUES.
 */
async function twoWorkers(taskQueue: string, requestsPerSecond?: number): Promise<{ local: Worker; other: SpawnedWorker }> {
  const local = await quotaWorker(taskQueue, {
    ...(requestsPerSecond !== undefined && { providerQueues: { openai: { requestsPerSecond } } }),
    overrides: { identity: 'worker-a' },
  });
  const other = await spawnWorker({
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    taskQueue,
    identity: 'worker-b',
    env: {
      ...bed.server.providerEnv,
      ...(requestsPerSecond !== undefined && { AGENT_PROVIDER_QUEUES: `openai:${requestsPerSecond}` }),
    },
  });
  return { local, other };
}

/** Starts `count` one-call runs at once and waits for them all, with both workers running. */
async function runAll(
  workers: { local: Worker; other: SpawnedWorker },
  taskQueue: string,
  count: number,
): Promise<Array<{ workflowId: string; answer: string }>> {
  try {
    return await workers.local.runUntil(async () => {
      const handles = await Promise.all(
        Array.from({ length: count }, (_, index) =>
          startAgent(
            bed.environment.client,
            { prompt: `task ${index}`, model, tools: [], workspace: bed.workspace },
            { taskQueue, workflowId: `quota-${randomUUID()}` },
          ),
        ),
      );
      return Promise.all(
        handles.map(async (handle) => ({ workflowId: handle.workflowId, answer: (await handle.result()).answer })),
      );
    });
  } finally {
    await workers.other.kill();
  }
}

afterEach(() => killSpawnedWorkers());

/** The most requests the provider saw in any one second (a window starting at each request). */
function busiestSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return Math.max(...sorted.map((start, index) => sorted.slice(index).filter((time) => time - start < 1000).length));
}

function callModelEvents(events: HistoryEvent[]) {
  const scheduled = events.filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
  const started = events.filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED);
  return scheduled.map((event) => {
    const attributes = event.activityTaskScheduledEventAttributes!;
    const start = started.find(
      (candidate) => Number(candidate.activityTaskStartedEventAttributes!.scheduledEventId) === Number(event.eventId),
    );
    return {
      type: attributes.activityType!.name!,
      taskQueue: attributes.taskQueue!.name!,
      identity: start?.activityTaskStartedEventAttributes?.identity ?? undefined,
    };
  });
}

beforeEach(() => {
  bed.server.rateLimit = new RequestRateLimit(providerLimit);
  bed.server.respondWith(() => openaiReply({ content: 'ok' }));
});

it("runs a provider's model calls on its own queue, at the shared limit across two workers: no 429s", async () => {
  const taskQueue = uniqueTaskQueue('quotas');
  const modelQueue = `${taskQueue}-model-openai`;
  const workers = await twoWorkers(taskQueue, sharedLimit);
  const results = await runAll(workers, taskQueue, runs);

  expect(results.map((result) => result.answer)).toEqual(Array(runs).fill('ok'));
  expect(bed.server.rateLimit!.refused).toBe(0);
  expect(bed.server.requests).toHaveLength(runs);
  expect(busiestSecond(bed.server.requests.map((request) => request.receivedAt))).toBeLessThanOrEqual(providerLimit);
  // Sixteen calls at one a second, after a burst of four, cannot all start within two seconds.
  const times = bed.server.requests.map((request) => request.receivedAt);
  expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(2000);
  const calls = (
    await Promise.all(
      results.map(async (result) => callModelEvents(await fetchEvents(bed.environment.client, result.workflowId))),
    )
  ).flat();
  const modelCalls = calls.filter((call) => call.type === 'callModel');
  expect(modelCalls).toHaveLength(runs);
  expect(new Set(modelCalls.map((call) => call.taskQueue))).toEqual(new Set([modelQueue]));
  // Both workers took model calls from the provider's queue: the limit held across them, not per worker.
  expect(new Set(modelCalls.map((call) => call.identity))).toEqual(new Set(['worker-a', 'worker-b']));
  // prepareRun stays on the run's own queue.
  expect(new Set(calls.filter((call) => call.type !== 'callModel').map((call) => call.taskQueue))).toEqual(new Set([taskQueue]));
});

it('without the shared limit, the same two workers overrun the provider: 429s, each retried by the model activity', async () => {
  const taskQueue = uniqueTaskQueue('quotas-off');
  const results = await runAll(await twoWorkers(taskQueue), taskQueue, runs);

  // Every run still answers: the 429's retry-after becomes the next attempt's delay (provider-errors.test.ts).
  expect(results.map((result) => result.answer)).toEqual(Array(runs).fill('ok'));
  expect(bed.server.rateLimit!.refused).toBeGreaterThan(0);
  expect(bed.server.requests.filter((request) => request.rateLimited)).toHaveLength(bed.server.rateLimit!.refused);
  const calls = (
    await Promise.all(
      results.map(async (result) => callModelEvents(await fetchEvents(bed.environment.client, result.workflowId))),
    )
  ).flat();
  expect(new Set(calls.map((call) => call.taskQueue))).toEqual(new Set([taskQueue]));
});

it("keeps tools and the other providers' calls on the run's queue while the model calls go to the provider's", async () => {
  bed.server.rateLimit = undefined;
  bed.server.respondWith((request) =>
    request.path.includes('/messages')
      ? anthropicReply({ text: 'from anthropic' })
      : request.body.messages.some((message: { role: string }) => message.role === 'tool')
        ? openaiReply({ content: 'listed' })
        : openaiReply({ toolCalls: [{ id: 'call_list', name: 'list_directory', arguments: { path: '.' } }] }),
  );
  const taskQueue = uniqueTaskQueue('quotas-tools');
  const modelQueue = `${taskQueue}-model-openai`;
  const worker = await quotaWorker(taskQueue, {
    providerQueues: { openai: { taskQueue: modelQueue, requestsPerSecond: 50 } },
  });
  const [openaiRun, anthropicRun] = await worker.runUntil(async () => {
    const start = (runModel: string, tools: string[]) =>
      startAgent(
        bed.environment.client,
        { prompt: 'list', model: runModel, tools, workspace: bed.workspace },
        { taskQueue, workflowId: `quota-${randomUUID()}` },
      );
    const runs = [await start(model, ['list_directory']), await start('anthropic:claude-haiku-4-5', [])];
    expect((await runs[1].result()).answer).toBe('from anthropic');
    await runs[0].result();
    return runs;
  });
  const calls = callModelEvents(await fetchEvents(bed.environment.client, openaiRun.workflowId));
  expect(calls.filter((call) => call.type === 'callModel').map((call) => call.taskQueue)).toEqual([modelQueue, modelQueue]);
  expect(calls.filter((call) => call.type === 'list_directory').map((call) => call.taskQueue)).toEqual([taskQueue]);
  // Anthropic has no queue of its own here: its call stays on the run's queue.
  const anthropicCalls = callModelEvents(await fetchEvents(bed.environment.client, anthropicRun.workflowId));
  expect(anthropicCalls.filter((call) => call.type === 'callModel').map((call) => call.taskQueue)).toEqual([taskQueue]);
});

it("keeps a session's model calls on the run's queue when its worker is given provider queues after the session began", async () => {
  bed.server.rateLimit = undefined;
  bed.server.respondWith(() => openaiReply({ content: 'ok' }));
  const taskQueue = uniqueTaskQueue('quotas-before');
  const workerWith = (providerQueues?: ProviderQueues) => quotaWorker(taskQueue, providerQueues && { providerQueues });
  const handle = await (
    await workerWith()
  ).runUntil(async () => {
    const started = await startAgent(
      bed.environment.client,
      { model, tools: [], workspace: bed.workspace, session: { idleTimeoutSeconds: 600 } },
      { taskQueue, workflowId: `quota-${randomUUID()}` },
    );
    await sendMessage(started, 'first');
    return started;
  });
  // The same deployment, now with the provider's queue: the session's queues were recorded when it began.
  await (
    await workerWith({ openai: { requestsPerSecond: 50 } })
  ).runUntil(async () => {
    expect((await sendMessage(handle, 'second')).answer).toBe('ok');
    await handle.terminate('test over');
  });
  const calls = callModelEvents(await fetchEvents(bed.environment.client, handle.workflowId));
  expect(calls.filter((call) => call.type === 'callModel').map((call) => call.taskQueue)).toEqual([taskQueue, taskQueue]);
});

it("polls the provider's queue as the worker's deployment version, so a pinned run's model calls stay on its build", async () => {
  const taskQueue = uniqueTaskQueue('quotas-versioned');
  const deploymentName = `quotas-${randomUUID()}`;
  const worker = await quotaWorker(taskQueue, {
    env: { ...bed.server.providerEnv, AGENT_DEPLOYMENT_NAME: deploymentName, AGENT_BUILD_ID: 'build-1' },
    providerQueues: { openai: { requestsPerSecond: 50 } },
  });
  const expected = [
    `${taskQueue} ${TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW}`,
    `${taskQueue} ${TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY}`,
    `${taskQueue}-model-openai ${TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY}`,
  ];
  // The server registers a queue in a version when a poller of that version polls it: the version then lists the
  // provider's queue beside the worker's own (an unversioned poller would leave it out, and it would get none).
  const queues = await worker.runUntil(
    waitFor('the deployment version to list the provider queue', async () => {
      const { workerDeploymentVersionInfo } = await bed.environment.client.workflowService.describeWorkerDeploymentVersion({
        namespace: bed.environment.namespace ?? 'default',
        deploymentVersion: { deploymentName, buildId: 'build-1' },
      });
      const listed = (workerDeploymentVersionInfo?.taskQueueInfos ?? []).map((info) => `${info.name} ${info.type}`);
      return expected.every((queue) => listed.includes(queue)) && listed;
    }),
  );
  expect(queues).toEqual(expect.arrayContaining(expected));
});

describe('provider queue settings', () => {
  it('reads AGENT_PROVIDER_QUEUES as provider[:requests per second]', () => {
    expect(providerQueuesFromEnv({ AGENT_PROVIDER_QUEUES: 'openai:10, anthropic:2.5,openai-responses' })).toEqual({
      openai: { requestsPerSecond: 10 },
      anthropic: { requestsPerSecond: 2.5 },
      'openai-responses': {},
    });
    expect(providerQueuesFromEnv({})).toBeUndefined();
  });

  it.each([
    ['openai=10', /"openai=10" is not provider\[:requests per second\]/],
    ['openai:0', /requests per second of "openai" must be a number above 0, got 0/],
    ['openai:fast', /requests per second of "openai" must be a number above 0, got NaN/],
  ])('refuses AGENT_PROVIDER_QUEUES=%s, saying why', (value, message) => {
    expect(() => providerQueuesFromEnv({ AGENT_PROVIDER_QUEUES: value })).toThrow(message);
  });

  it('refuses a provider the worker does not have, and a limit that is not a positive number, when the plugin is made', () => {
    expect(() => new AgentPlugin({ tracing: false, providerQueues: { opneai: { requestsPerSecond: 5 } } })).toThrow(
      new ConfigurationError(
        'provider queues name unknown providers: opneai; this worker has: openai, openai-responses, anthropic',
      ),
    );
    expect(() => new AgentPlugin({ tracing: false, providerQueues: { openai: { requestsPerSecond: -1 } } })).toThrow(
      /requests per second of "openai" must be a number above 0, got -1/,
    );
    expect(() => new AgentPlugin({ tracing: false, providerQueues: { openai: { taskQueue: ' ' } } })).toThrow(
      /the task queue of "openai" must not be empty/,
    );
  });
});
