import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { startAgent, type AgentHandle } from '../../client/start-agent';
import type { AgentResult } from '../../core/result';
import { activityStarts, startOf } from '../support/activity-starts';
import { killDevServers, startDevServer, type DevServer } from '../support/dev-server-process';
import { freePort } from '../../cli/dev-server/free-port';
import { FakeModelServer, openaiError, openaiReply, type FakeStep } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { readStepLog, stepHistory } from '../support/slow-step-tool';
import { killSpawnedWorkers, spawnWorker } from '../support/spawned-worker';
import { uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// The Temporal server itself is stopped (SIGTERM) mid-run and started again on the
// same state file and port. The worker process and the client were connected before
// and are left alone: they have to reconnect on their own.

const model = 'openai:gpt-4o-mini';
/** How long the server stays down: the scenario, not a wait for something to happen. */
const downtimeMs = 2_000;
const testTimeoutMs = 180_000;
const faultPointTimeoutMs = 90_000;
const PendingActivityState = temporal.api.enums.v1.PendingActivityState;

let fake: FakeModelServer;
let environment: TestWorkflowEnvironment | undefined;
/** The test's server state file lives here. */
let stateDirectory: string | undefined;

beforeAll(async () => {
  fake = await FakeModelServer.start();
});
beforeEach(() => fake.reset());
afterEach(async () => {
  await killSpawnedWorkers();
  await environment?.teardown();
  environment = undefined;
  await killDevServers();
  if (stateDirectory) await rm(stateDirectory, { recursive: true, force: true });
  stateDirectory = undefined;
});
afterAll(() => fake?.close());

interface Run {
  handle: AgentHandle;
  /** handle.result(), called right after the start: it is pending across the restart. */
  result: Promise<AgentResult>;
  /** Stops the server, keeps it down for `downtimeMs`, starts it again on the same file and port. */
  restartServer(): Promise<void>;
  steps(): Promise<Record<string, string[]>>;
}

async function startRun(name: string): Promise<Run> {
  stateDirectory = await mkdtemp(path.join(os.tmpdir(), 'server-restart-'));
  const serverOptions = { port: await freePort(), dbFilename: path.join(stateDirectory, 'temporal.db') };
  let server: DevServer = await startDevServer(serverOptions);
  environment = await TestWorkflowEnvironment.createFromExistingServer({ address: server.address });
  const workspace = await makeWorkspace();
  const stepLog = path.join(workspace, 'steps.log');
  const taskQueue = uniqueTaskQueue(name);
  await spawnWorker({
    address: server.address,
    taskQueue,
    identity: 'worker',
    env: { ...fake.providerEnv, SLOW_STEP_LOG: stepLog },
  });
  const handle = await startAgent(
    environment.client,
    { prompt: 'Do the steps.', model, tools: ['slow_step'], workspace },
    { taskQueue },
  );
  const result = handle.result();
  result.catch(() => {}); // awaited by the test; this only keeps a rejection from being reported twice
  return {
    handle,
    result,
    async restartServer() {
      const stoppingAt = Date.now();
      await server.stop();
      const stoppedAt = Date.now();
      await sleep(downtimeMs);
      server = await startDevServer(serverOptions);
      const servingAt = Date.now();
      if (process.env.FAULT_TIMINGS) {
        void result
          .finally(() => {
            const seconds = (millis: number) => `${(millis / 1000).toFixed(1)} s`;
            process.stderr.write(
              `${name}: SIGTERM took ${seconds(stoppedAt - stoppingAt)}, down ${seconds(servingAt - stoppedAt)} in all; ` +
                `result() resolved ${seconds(Date.now() - servingAt)} after the server was back\n`,
            );
          })
          .catch(() => {});
      }
    },
    steps: async () => stepHistory(await readStepLog(stepLog)),
  };
}

function stepCall(id: string, label: string, extra: { waitForFile?: string } = {}): FakeStep {
  return openaiReply({ toolCalls: [{ id, name: 'slow_step', arguments: { label, ms: 0, ...extra } }] });
}

it(
  'finishes a run whose server restarted while a tool call was running, without running anything twice',
  async () => {
    // The step cannot finish before the server is back: it waits for a file the test creates after the restart.
    const gate = path.join(await makeWorkspace(), 'open');
    fake.enqueue(
      stepCall('call_1', 'across-restart', { waitForFile: gate }),
      openaiReply({ content: 'finished across the restart' }),
    );
    const run = await startRun('restart-during-tool-call');
    await waitFor('the step to start', async () => (await run.steps())['across-restart']?.length === 1, {
      timeoutMs: faultPointTimeoutMs,
    });

    await run.restartServer();
    await writeFile(gate, '');

    // The client's result() was pending before the server stopped, and resolves with the answer.
    expect(await run.result).toMatchObject({ answer: 'finished across the restart', status: 'completed', iterations: 2 });
    expect((await run.handle.describe()).status.name).toBe('COMPLETED');
    expect(fake.requests).toHaveLength(2);
    expect(await run.steps()).toEqual({ 'across-restart': ['start@worker', 'finish@worker'] });
    // The step's one attempt outlived the restart: its heartbeats and its completion reached the restarted server.
    const starts = activityStarts(await fetchEvents(environment!.client, run.handle.workflowId));
    expect(startOf(starts, 'slow_step across-restart').attempt).toBe(1);
    expect(startOf(starts, `${model} iteration 2`).attempt).toBe(1);
  },
  testTimeoutMs,
);

it(
  'finishes a run whose server restarted between turns, while a model call waited out Retry-After',
  async () => {
    fake.enqueue(
      stepCall('call_1', 'first'),
      openaiError(429, 'Rate limit reached', { 'retry-after': '5' }),
      openaiReply({ content: 'finished after the pause' }),
    );
    const run = await startRun('restart-between-turns');
    await waitFor(
      'iteration 2 to wait for its second attempt',
      async () => {
        const pending = (await run.handle.describe()).raw.pendingActivities ?? [];
        return pending.some(
          (activity) => activity.attempt === 2 && activity.state === PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED,
        );
      },
      { timeoutMs: faultPointTimeoutMs },
    );

    await run.restartServer();

    expect(await run.result).toMatchObject({ answer: 'finished after the pause', status: 'completed', iterations: 2 });
    expect((await run.handle.describe()).status.name).toBe('COMPLETED');
    // The retry timer was kept in the server's state file: iteration 2 was tried exactly twice.
    expect(fake.requests).toHaveLength(3);
    expect(await run.steps()).toEqual({ first: ['start@worker', 'finish@worker'] });
    const starts = activityStarts(await fetchEvents(environment!.client, run.handle.workflowId));
    expect(startOf(starts, `${model} iteration 2`).attempt).toBe(2);
  },
  testTimeoutMs,
);
