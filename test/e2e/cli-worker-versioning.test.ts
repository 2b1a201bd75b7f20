import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startAgent } from '../../client/start-agent';
import { sendMessage } from '../../client/send-message';
import { collect, runCli, spawnCli } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { setCurrentVersion, taskBuilds, WorkerProcesses } from '../support/deployment-workers';
import { fetchEvents } from '../support/history';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';

// The worker a CLI command runs in its own process (cli/connect.ts) and Worker Versioning: a shell that deployed a
// build has AGENT_DEPLOYMENT_NAME and AGENT_BUILD_ID exported, and a command run there must not become a worker of that
// version (docs/upgrades.md, "The CLI's own worker"). Asserted from the server: the deployment's versions, and the
// version recorded on each workflow task of the run.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));
const workers = new WorkerProcesses(() => bed.server.providerEnv);
afterAll(() => workers.stopAll());

/** The build ids the server knows in this worker deployment; none when it has never heard of it. */
async function deploymentBuilds(client: Client, deploymentName: string): Promise<string[]> {
  try {
    const { workerDeploymentInfo } = await client.workflowService.describeWorkerDeployment({
      namespace: 'default',
      deploymentName,
    });
    return (workerDeploymentInfo?.versionSummaries ?? []).map((summary) => summary.deploymentVersion?.buildId ?? '');
  } catch (error) {
    if ((error as { code?: number }).code === 5 /* grpc NOT_FOUND */) return [];
    throw error;
  }
}

const shellOf = (deploymentName: string, taskQueue: string): NodeJS.ProcessEnv => ({
  ...bed.server.providerEnv,
  AGENT_TASK_QUEUE: taskQueue,
  AGENT_DEPLOYMENT_NAME: deploymentName,
  AGENT_BUILD_ID: 'from-the-shell',
});

it('runs its own worker unversioned when the shell names a deployment and a build, and says so', async () => {
  const { client } = bed.environment;
  const deploymentName = `shell-${Date.now()}`;
  const taskQueue = uniqueTaskQueue('cli-unversioned');
  bed.server.enqueue(openaiReply({ content: 'answered by the CLI' }));

  // No worker polls this queue: `agent run` runs one in its own process.
  const run = await runCli(['run', 'hello', '--model', 'openai:gpt-4o-mini', '--workspace', bed.workspace, '--json'], {
    ...shellOf(deploymentName, taskQueue),
  });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('answered by the CLI');
  expect(run.stderr).toContain(`does not join worker deployment "${deploymentName}"`);

  // The server never saw a poller of the shell's version; every workflow task of the run was unversioned.
  expect(await deploymentBuilds(client, deploymentName)).toEqual([]);
  const { workflowId } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { workflowId: string };
  const builds = taskBuilds(await fetchEvents(client, workflowId));
  expect(builds.length).toBeGreaterThan(0);
  expect(new Set(builds)).toEqual(new Set(['unversioned']));
});

it('joins the deployment as the shell says only with AGENT_CLI_WORKER_VERSIONING=1', async () => {
  const { client } = bed.environment;
  const deploymentName = `shell-opt-in-${Date.now()}`;
  const taskQueue = uniqueTaskQueue('cli-opt-in');
  // With no current version, a new run waits for an unversioned worker: the command is stopped once the server has
  // seen its worker poll as the shell's version.
  const cli = spawnCli(['run', 'hello', '--model', 'openai:gpt-4o-mini', '--workspace', bed.workspace], {
    ...shellOf(deploymentName, taskQueue),
    AGENT_CLI_WORKER_VERSIONING: '1',
  });
  const ended = collect(cli);
  try {
    await waitFor(
      'the CLI worker to poll as the shell version',
      async () => (await deploymentBuilds(client, deploymentName)).includes('from-the-shell'),
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  } finally {
    cli.kill('SIGKILL');
    await ended;
  }
});

it('refuses an AGENT_CLI_WORKER_VERSIONING that is neither 1 nor 0', async () => {
  const taskQueue = uniqueTaskQueue('cli-bad-setting');
  const run = await runCli(['run', 'hello', '--model', 'openai:gpt-4o-mini', '--workspace', bed.workspace], {
    ...shellOf(`shell-bad-${Date.now()}`, taskQueue),
    AGENT_CLI_WORKER_VERSIONING: 'yes',
  });
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain('AGENT_CLI_WORKER_VERSIONING is "yes"');
});

it("leaves a versioned session's task to its deployment when no worker of the deployment answers", async () => {
  const { client } = bed.environment;
  const deploymentName = `shell-fallback-${Date.now()}`;
  const taskQueue = uniqueTaskQueue('cli-fallback');
  const workerEnv = {
    AGENT_TASK_QUEUE: taskQueue,
    AGENT_DEPLOYMENT_NAME: deploymentName,
    AGENT_BUILD_ID: 'v2',
    AGENT_DEFINITIONS: path.join(__dirname, '..', 'fixtures', 'versioning', 'build-named-agents.ts'),
  };
  const v2 = await workers.start(workerEnv);
  await setCurrentVersion(deploymentName, 'v2');
  bed.server.enqueue(openaiReply({ content: 'first' }));
  const session = await startAgent(client, { agent: 'versioned', session: {}, workspace: bed.workspace }, { taskQueue });
  expect((await sendMessage(session, 'hello')).answer).toBe('first');

  // v2's worker is gone (the server still lists it for a while): `agent send` finds no worker to answer its query
  // within 5 s and runs one of its own, unversioned although the shell names the deployment and v2.
  await workers.stop(v2);
  bed.server.enqueue(openaiReply({ content: 'answered by v2 again' }));
  const send = spawnCli(['send', session.workflowId, 'anyone there?'], shellOf(deploymentName, taskQueue), { stdin: 'ignore' });
  let stderr = '';
  send.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const sent = collect(send);
  await waitFor('agent send to run a worker of its own', () => stderr.includes('does not join worker deployment'), {
    timeoutMs: 60_000,
  });
  expect(stderr).toContain('no worker answered within 5s');

  // That worker takes nothing of the session: v2 answers once a worker of v2 polls again.
  await workers.start(workerEnv);
  expect(await sent).toMatchObject({ code: 0, stdout: 'answered by v2 again\n' });
  const events = await fetchEvents(client, session.workflowId);
  expect(new Set(taskBuilds(events))).toEqual(new Set(['v2']));
  // No workflow task was completed by the CLI's process (a worker's identity is `<pid>@<host>`).
  const completedBy = events.flatMap((event) => event.workflowTaskCompletedEventAttributes?.identity ?? []);
  expect(completedBy.filter((identity) => identity.startsWith(`${send.pid}@`))).toEqual([]);
  const { raw } = await session.describe();
  expect(raw.workflowExecutionInfo?.versioningInfo?.behavior).toBe(
    temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE,
  );
});
