import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { defineAgent } from '../../agents/define-agent';
import { InvalidInputError, startAgent } from '../../client/start-agent';
import { freePort } from '../../cli/dev-server/free-port';
import { agentDataConverter } from '../../storage/data-converter';
import { createAgentWorker } from '../../worker/create-worker';
import { lastJsonLine, runCli } from '../support/cli';
import { startDevServer, type DevServer } from '../support/dev-server-process';
import { openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { scriptByAgent } from '../support/script-by-agent';
import { createTestWorker, inProcessTestWorker, testWorkspaceRoot, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const bed = useTestBed();
const model = 'openai:gpt-4o-mini';

/** The priority each activity was scheduled with, by activity type, in history order. */
function scheduledPriorities(events: HistoryEvent[]): Array<{ type: string; priority: unknown }> {
  return events
    .filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
    .map((event) => {
      const attributes = event.activityTaskScheduledEventAttributes!;
      const priority = attributes.priority;
      return {
        type: attributes.activityType!.name!,
        priority: priority ? { priorityKey: priority.priorityKey, fairnessKey: priority.fairnessKey } : null,
      };
    });
}

function startedPriority(events: HistoryEvent[]) {
  const priority = events[0].workflowExecutionStartedEventAttributes!.priority;
  return priority
    ? { priorityKey: priority.priorityKey, fairnessKey: priority.fairnessKey, fairnessWeight: priority.fairnessWeight }
    : null;
}

async function runEvents(workflowId: string, runId?: string): Promise<HistoryEvent[]> {
  return (await bed.environment.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
}

it('carries the tenant and priority to model and tool activities, the subagent run and the run it continues as new', async () => {
  const helper = defineAgent({ name: 'helper', description: 'Helps.', instructions: 'You are the helper.', model });
  const lead = defineAgent({
    name: 'lead',
    description: 'Leads.',
    instructions: 'You are the lead.',
    model,
    tools: ['list_directory'],
    subagents: [helper],
  });
  scriptByAgent(bed.server, {
    lead: [
      openaiReply({
        toolCalls: [
          { id: 'call_list', name: 'list_directory', arguments: { path: '.' } },
          { id: 'call_help', name: 'helper', arguments: { task: 'help' } },
        ],
      }),
      openaiReply({ content: 'all done' }),
    ],
    helper: [openaiReply({ content: 'helped' })],
  });
  const taskQueue = uniqueTaskQueue('fairness');
  const worker = await createTestWorker(bed.environment, { taskQueue, agents: [lead, helper], env: bed.server.providerEnv });
  const handle = await worker.runUntil(async () => {
    const started = await startAgent(
      bed.environment.client,
      { prompt: 'work', agent: 'lead', workspace: bed.workspace, continueAsNewAfterModelCalls: 1 },
      { taskQueue, workflowId: `fairness-${randomUUID()}`, tenant: 'acme', priority: 2, tenantWeight: 3 },
    );
    expect((await started.result()).answer).toBe('all done');
    return started;
  });
  const expected = { priorityKey: 2, fairnessKey: 'acme' };

  const first = await runEvents(handle.workflowId, handle.firstExecutionRunId);
  expect(startedPriority(first)).toEqual({ ...expected, fairnessWeight: 3 });
  const activities = scheduledPriorities(first);
  expect(activities.filter((activity) => activity.type === 'callModel' || activity.type === 'list_directory')).toEqual([
    { type: 'callModel', priority: expected },
    { type: 'list_directory', priority: expected },
  ]);
  // The run continued as new (one model call per run): the next run has them too, and so do its model calls.
  const last = await fetchEvents(bed.environment.client, handle.workflowId);
  expect(last[0].workflowExecutionStartedEventAttributes!.firstExecutionRunId).toBe(handle.firstExecutionRunId);
  expect(last[0].workflowExecutionStartedEventAttributes!.continuedExecutionRunId).toBeTruthy();
  expect(startedPriority(last)).toEqual({ ...expected, fairnessWeight: 3 });
  expect(scheduledPriorities(last).filter((activity) => activity.type === 'callModel')).toEqual([
    { type: 'callModel', priority: expected },
  ]);
  // The subagent, a child workflow, inherits them from its parent.
  const child = await runEvents(`${handle.workflowId}/call_help`);
  expect(startedPriority(child)).toEqual({ ...expected, fairnessWeight: 3 });
  expect(scheduledPriorities(child).filter((activity) => activity.type === 'callModel')).toEqual([
    { type: 'callModel', priority: expected },
  ]);
  // The Web UI shows them in the first run's details (the details a run is started with are not carried on), and the
  // server describes every run of the workflow with its priority.
  const firstRun = await bed.environment.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
  expect(await firstRun.staticDetails()).toMatch(/\*\*tenant\*\* `acme` \(weight 3\)[\s\S]*\*\*priority\*\* 2/);
  const current = await bed.environment.client.workflow.getHandle(handle.workflowId).describe();
  expect(current.raw.workflowExecutionInfo?.priority).toMatchObject(expected);
});

it('schedules the activities of a run without tenant or priority with none, as before', async () => {
  bed.server.respondWith(() => openaiReply({ content: 'plain' }));
  const taskQueue = uniqueTaskQueue('fairness-none');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const handle = await worker.runUntil(async () => {
    const started = await startAgent(
      bed.environment.client,
      { prompt: 'hi', model, tools: [], workspace: bed.workspace },
      { taskQueue },
    );
    await started.result();
    return started;
  });
  const events = await fetchEvents(bed.environment.client, handle.workflowId);
  expect(startedPriority(events)).toEqual(null);
  expect(scheduledPriorities(events).map((activity) => activity.priority)).toEqual([null, null]);
});

it.each([
  [{ tenant: '' }, 'tenant must be a non-empty name without surrounding spaces'],
  [{ tenant: 'é'.repeat(33) }, "tenant must be at most 64 bytes (Temporal's limit on a fairness key), got 66"],
  [{ priority: 0 }, 'priority must be a whole number from 1 (first) to 5 (last), got 0'],
  [{ priority: 2.5 }, 'priority must be a whole number from 1 (first) to 5 (last), got 2.5'],
  [{ tenant: 'acme', tenantWeight: 0 }, 'tenantWeight must be a number above 0, got 0'],
  [{ tenantWeight: 2 }, 'tenantWeight needs a tenant'],
])('refuses %j before starting anything', async (tenancy, message) => {
  const workflowId = `fairness-bad-${randomUUID()}`;
  const failure = await startAgent(
    bed.environment.client,
    { prompt: 'hi', model, workspace: bed.workspace },
    { taskQueue: uniqueTaskQueue('fairness-bad'), workflowId, ...tenancy },
  ).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(InvalidInputError);
  expect((failure as Error).message).toBe(`invalid input: ${message}`);
  await expect(bed.environment.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
});

describe('the CLI', () => {
  it('starts a run with --tenant and --priority', async () => {
    bed.server.respondWith(() => openaiReply({ content: 'from the cli' }));
    const id = `fairness-cli-${randomUUID()}`;
    const run = await runCli(
      ['run', 'hi', '--workspace', bed.workspace, '--tenant', 'acme', '--priority', '1', '--id', id, '--json', '--tools', ''],
      { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('fairness-cli') },
    );
    expect(run.code).toBe(0);
    expect(lastJsonLine(run.stdout)).toMatchObject({ answer: 'from the cli' });
    const events = await fetchEvents(bed.environment.client, id);
    expect(startedPriority(events)).toEqual({ priorityKey: 1, fairnessKey: 'acme', fairnessWeight: 0 });
    expect(scheduledPriorities(events).find((activity) => activity.type === 'callModel')?.priority).toEqual({
      priorityKey: 1,
      fairnessKey: 'acme',
    });
  });

  it.each([
    [['--priority', '9'], '--priority must be a whole number from 1 (first) to 5 (last), got 9'],
    [['--priority', 'high'], '--priority must be a whole number, got "high"'],
    [['--tenant', 'x'.repeat(65)], "--tenant must be at most 64 bytes (Temporal's limit on a fairness key), got 65"],
  ])('refuses %j with exit code 2, saying why', async (flags, message) => {
    const run = await runCli(['run', 'hi', '--workspace', bed.workspace, ...flags], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});

/**
 * Tenant A queues 20 runs, then tenant B queues 3, then tenant C one at priority 1 (the others have the default, 3),
 * before any worker polls; then a worker with one activity slot works through them. Where B's and C's model calls fall
 * among the 24 shows how the server dispatched the backlog.
 */
async function positions(dynamicConfig: string[]): Promise<{ b: number[]; urgent: number }> {
  const server: DevServer = await startDevServer({
    port: await freePort(),
    dbFilename: path.join(await mkdtemp(path.join(os.tmpdir(), 'fairness-server-')), 'db.sqlite'),
    // One partition: the dispatch order of a queue is the order of its one backlog (a real queue has four).
    dynamicConfig: ['matching.numTaskqueueReadPartitions=1', 'matching.numTaskqueueWritePartitions=1', ...dynamicConfig],
  });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection, dataConverter: agentDataConverter() });
    const taskQueue = uniqueTaskQueue('fairness-order');
    const start = (tenant: string, index: number, priority?: number) =>
      startAgent(
        client,
        { prompt: `${tenant} ${index}`, model, tools: [], workspace: bed.workspace },
        { taskQueue, tenant, ...(priority && { priority }) },
      );
    const a = await Promise.all(Array.from({ length: 20 }, (_, index) => start('A', index)));
    const b = await Promise.all(Array.from({ length: 3 }, (_, index) => start('B', index)));
    const c = await start('C', 0, 1);
    bed.server.respondWith(() => openaiReply({ content: 'ok' }));
    const worker = await createAgentWorker({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue,
      env: bed.server.providerEnv,
      workspaceRoot: testWorkspaceRoot,
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
      // One slot of each: workflow tasks, and so the model calls they schedule, are taken in the order the server
      // dispatches them (with many workflow slots, activations finish in any order and blur that order). One workflow
      // slot takes no sticky cache (the SDK refuses a cache with a single workflow poller): every task is replayed.
      overrides: {
        maxConcurrentActivityTaskExecutions: 1,
        maxConcurrentWorkflowTaskExecutions: 1,
        ...inProcessTestWorker,
        maxCachedWorkflows: 0,
      },
    });
    await worker.runUntil(Promise.all([...a, ...b, c].map((handle) => handle.result())));
    const prompts = bed.server.requests.map((request) => request.body.messages.at(-1).content as string);
    return {
      b: prompts.flatMap((prompt, index) => (prompt.startsWith('B ') ? [index + 1] : [])),
      urgent: prompts.indexOf('C 0') + 1,
    };
  } finally {
    await connection.close();
    await nativeConnection.close();
    await server.stop();
  }
}

it("dispatches by priority, then tenant B's runs among tenant A's backlog on a server with fairness on; in order on one without", async () => {
  const withFairness = await positions(['matching.enableFairness=true']);
  bed.server.reset();
  const without = await positions([]);
  // Fairness: the priority-1 run goes before the whole backlog, and B's three calls alternate with A's from its start
  // (measured: 1, 3, 5).
  expect(withFairness.urgent).toBeLessThanOrEqual(2);
  expect(Math.max(...withFairness.b)).toBeLessThanOrEqual(8);
  // Without (the dev server's default): the keys are accepted and ignored; B waits for A's twenty, first in first out,
  // and the priority-1 run, queued last, goes last.
  expect(Math.min(...without.b)).toBeGreaterThan(15);
  expect(without.urgent).toBeGreaterThan(20);
}, 240_000);
