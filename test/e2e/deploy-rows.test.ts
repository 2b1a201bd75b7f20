import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { failureTypes } from '../../core/errors';
import { startAgent } from '../../client/start-agent';
import { approveUpdate, statusQuery } from '../../workflows/definitions';
import { activityCalls } from '../support/activity-calls';
import { openaiReply } from '../support/fake-model-server';
import { setCurrentVersion, taskBuilds, WorkerProcesses } from '../support/deployment-workers';
import { fetchEvents } from '../support/history';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// Two rows of RELIABILITY.md's "Deploys under runs in flight", on the real dev server with the real worker entry
// point (`npm run worker`) in processes of their own: a call to a tool the new (unversioned) worker no longer has, and
// a pinned run whose version lost its workers. Each run waits for an approval while the deploy happens, so the deploy
// falls between the model's tool call and the tool's run.

const bed = useTestBed();
jest.setTimeout(240_000);
afterEach(() => expect(bed.server.refusals).toEqual([]));

const fixtures = path.join(__dirname, '..', 'fixtures', 'versioning');
const workers = new WorkerProcesses(() => bed.server.providerEnv);
afterAll(() => workers.stopAll());
const startWorker = (env: NodeJS.ProcessEnv) => workers.start(env);
const stopWorker = (child: ChildProcess) => workers.stop(child);

/** The build ids that completed the run's workflow tasks, and how many workflow tasks failed. */
async function workflowTasks(client: Client, workflowId: string): Promise<{ builds: string[]; failed: number }> {
  const events = await fetchEvents(client, workflowId);
  return { builds: taskBuilds(events), failed: events.filter((event) => event.workflowTaskFailedEventAttributes).length };
}

const toolMessages = (body: { messages: Array<{ role: string; content: string }> }) =>
  body.messages.filter((message) => message.role === 'tool');

it("unversioned: a call to a tool the new worker no longer has fails its activity after the tool's attempts, then the run fails at its next model call", async () => {
  const { client } = bed.environment;
  const taskQueue = uniqueTaskQueue('tool-removed');
  const workspace = await makeWorkspace({});
  const workerEnv = (agents: string) => ({ AGENT_TASK_QUEUE: taskQueue, AGENT_DEFINITIONS: path.join(fixtures, agents) });

  // The old worker has `stamp`; the model calls it, and the call waits for approval.
  const oldWorker = await startWorker(workerEnv('tool-kept-agents.ts'));
  bed.server.enqueue(openaiReply({ toolCalls: [{ id: 'call_stamp', name: 'stamp', arguments: { note: 'hi' } }] }));
  const run = await startAgent(client, { agent: 'stamper', prompt: 'stamp hi', workspace }, { taskQueue });
  await waitFor('the call to wait for approval', async () => (await run.query(statusQuery)).pendingApprovals.length === 1);

  // The deploy: the old worker goes, the new one has no `stamp` tool (and so no `stamp` activity).
  await stopWorker(oldWorker);
  await startWorker(workerEnv('tool-removed-agents.ts'));
  await run.executeUpdate(approveUpdate, { args: [{}] });
  const failure = await run.result().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect((failure as WorkflowFailedError).cause).toMatchObject({
    type: failureTypes.configuration,
    message: 'tool "stamp" is not registered on this worker',
  });

  // The tool's activity failed on its last attempt, the second (the tool's maximumAttempts), as one the worker lacks.
  const calls = activityCalls(await fetchEvents(client, run.workflowId));
  const stamp = calls.filter((call) => call.activityType === 'stamp');
  expect(stamp).toHaveLength(1);
  expect(stamp[0].attempt).toBe(2);
  expect(stamp[0].failure).toMatchObject({ type: 'NotFoundError' });
  expect(stamp[0].failure!.message).toContain('Activity function stamp is not registered on this Worker');
  // Its error result never reached the model: the next model call, which still offers the run's tools (`stamp` among
  // them), failed on the new worker before any request, as a configuration error, not retried.
  const last = calls.at(-1)!;
  expect(last).toMatchObject({ activityType: 'callModel', attempt: 1 });
  expect(last.failure).toMatchObject({ type: failureTypes.configuration });
  expect(bed.server.requests).toHaveLength(1);
});

it('versioned: a pinned run whose build lost its workers does not fail, its tasks wait for a worker of that build', async () => {
  const { client } = bed.environment;
  const taskQueue = uniqueTaskQueue('drained');
  const deploymentName = `drained-${Date.now()}`;
  const workspace = await makeWorkspace({ 'notes.txt': 'written before the deploy' });
  // Both builds run the same code: the build id is what pins, so AGENT_BUILD_ID tells them apart.
  const workerEnv = (buildId: string) => ({
    AGENT_TASK_QUEUE: taskQueue,
    AGENT_DEPLOYMENT_NAME: deploymentName,
    AGENT_BUILD_ID: buildId,
    AGENT_DEFINITIONS: path.join(fixtures, 'build-1-agents.ts'),
  });

  // A run starts on build 1, pinned, and waits for approval.
  const build1 = await startWorker(workerEnv('build-1'));
  await setCurrentVersion(deploymentName, 'build-1');
  bed.server.enqueue(openaiReply({ toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } }] }));
  const run = await startAgent(client, { agent: 'versioned', prompt: 'read notes.txt', workspace }, { taskQueue });
  await waitFor('the run to wait for approval', async () => (await run.query(statusQuery)).pendingApprovals.length === 1);

  // Build 1 loses its workers too early; build 2 polls and is current.
  await stopWorker(build1);
  await startWorker(workerEnv('build-2'));
  await setCurrentVersion(deploymentName, 'build-2');

  // The approval is sent while no build-1 worker polls: build 2 does not take the run's task, and nothing fails.
  bed.server.enqueue(openaiReply({ content: 'notes read on build 1' }));
  const approval = run.executeUpdate(approveUpdate, { args: [{}] });
  approval.catch(() => undefined); // Awaited below; a rejection meanwhile is not unhandled.
  // Long enough for build 2 to have taken the task had it been offered (it polls all along), and for a sticky
  // task on the dead worker to time out back to the task queue.
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  expect((await run.describe()).status.name).toBe('RUNNING');
  expect(bed.server.requests).toHaveLength(1);
  expect(await workflowTasks(client, run.workflowId)).toEqual({ builds: expect.any(Array), failed: 0 });
  expect(new Set((await workflowTasks(client, run.workflowId)).builds)).toEqual(new Set(['build-1']));
  const waitingBuilds = (await workflowTasks(client, run.workflowId)).builds.length;

  // A build-1 worker is back: the run's waiting task goes to it, and the run finishes there.
  await startWorker(workerEnv('build-1'));
  await approval;
  expect(await run.result()).toMatchObject({ status: 'completed', answer: 'notes read on build 1' });
  const { builds, failed } = await workflowTasks(client, run.workflowId);
  expect(builds.length).toBeGreaterThan(waitingBuilds);
  expect(new Set(builds)).toEqual(new Set(['build-1']));
  expect(failed).toBe(0);
  expect(toolMessages(bed.server.requests[1].body)[0].content).toContain('written before the deploy');
});
