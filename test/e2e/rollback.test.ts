import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { startAgent, type AgentHandle } from '../../client/start-agent';
import { sendMessage } from '../../client/send-message';
import { workflowsPath } from '../../worker/agent-plugin';
import { collect, spawnCli } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { setCurrentVersion, taskBuilds, WorkerProcesses } from '../support/deployment-workers';
import { fetchEvents } from '../support/history';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// A bad deploy and a rollback with sessions open (RELIABILITY.md, "Deploys under runs in flight"), on the real dev
// server with `npm run worker` processes: build v2 is current and answers two sessions; build v3, whose workflow code
// fails every task, is made current; a person sends a message with `agent send` from the shell that deployed (its
// AGENT_DEPLOYMENT_NAME and AGENT_BUILD_ID exported), and its workflow task fails on v3; v2 is made current again and
// answers it; then v4 is made current. Each session is asked of the server (describe: its versioning behaviour and
// version) and must still be auto-upgrading, and answer its next message from v4.

const bed = useTestBed();
jest.setTimeout(300_000);
afterEach(() => expect(bed.server.refusals).toEqual([]));

const fixtures = path.join(__dirname, '..', 'fixtures', 'versioning');
const workers = new WorkerProcesses(() => bed.server.providerEnv);
afterAll(() => workers.stopAll());

const { VersioningBehavior } = temporal.api.enums.v1;

async function brokenBundle(): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger: new DefaultLogger('WARN'),
    workflowInterceptorModules: [path.join(fixtures, 'broken-build.ts')],
  });
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'rollback-')), 'broken.js');
  await writeFile(file, code);
  return file;
}

/** What the server says of the session's current run: its versioning behaviour and the build it is on. */
async function versioningOf(client: Client, workflowId: string): Promise<{ behavior: string; build?: string }> {
  const { raw } = await client.workflow.getHandle(workflowId).describe();
  const info = raw.workflowExecutionInfo?.versioningInfo;
  return {
    behavior: VersioningBehavior[info?.behavior ?? VersioningBehavior.VERSIONING_BEHAVIOR_UNSPECIFIED],
    ...(info?.deploymentVersion?.buildId && { build: info.deploymentVersion.buildId }),
  };
}

async function failedTasks(client: Client, workflowId: string): Promise<number> {
  return (await fetchEvents(client, workflowId)).filter((event) => event.workflowTaskFailedEventAttributes).length;
}

const systemPromptOf = (index: number): string => bed.server.requests[index].body.messages[0].content;

it('keeps sessions auto-upgrading through a failed task and a rollback, so they answer from the next build', async () => {
  const { client } = bed.environment;
  const deploymentName = `agents-${Date.now()}`;
  const taskQueue = uniqueTaskQueue('rollback');
  const workspace = await makeWorkspace({});
  const good = process.env.TEST_WORKFLOW_BUNDLE!;
  const broken = await brokenBundle();
  const agents = path.join(fixtures, 'build-named-agents.ts');
  const workerEnv = (buildId: string, workflowBundle: string) => ({
    AGENT_TASK_QUEUE: taskQueue,
    AGENT_DEPLOYMENT_NAME: deploymentName,
    AGENT_BUILD_ID: buildId,
    AGENT_WORKFLOW_BUNDLE: workflowBundle,
    AGENT_DEFINITIONS: agents,
  });

  // v2 is current and answers two sessions.
  await workers.start(workerEnv('v2', good));
  await setCurrentVersion(deploymentName, 'v2');
  const sessions: AgentHandle[] = [];
  for (const name of ['first', 'second']) {
    bed.server.enqueue(openaiReply({ content: `${name} answered on v2` }));
    const session = await startAgent(client, { agent: 'versioned', session: {}, workspace }, { taskQueue });
    expect((await sendMessage(session, 'hello')).answer).toBe(`${name} answered on v2`);
    expect(await versioningOf(client, session.workflowId)).toEqual({ behavior: 'VERSIONING_BEHAVIOR_AUTO_UPGRADE', build: 'v2' });
    sessions.push(session);
  }

  // The bad deploy: v3 fails every workflow task it takes.
  await workers.start(workerEnv('v3', broken));
  await setCurrentVersion(deploymentName, 'v3');

  // A person sends a message from the shell that deployed v2 (its variables still exported): the task fails on v3.
  const [incident, untouched] = sessions;
  const shell = {
    ...bed.server.providerEnv,
    AGENT_TASK_QUEUE: taskQueue,
    AGENT_DEPLOYMENT_NAME: deploymentName,
    AGENT_BUILD_ID: 'v2',
  };
  bed.server.enqueue(openaiReply({ content: 'answered after the rollback' }));
  const sent = collect(spawnCli(['send', incident.workflowId, 'during the incident'], shell, { stdin: 'ignore' }));
  await waitFor('the workflow task to fail on v3', async () => (await failedTasks(client, incident.workflowId)) > 0, {
    timeoutMs: 60_000,
  });

  // The rollback: v2 is current again, retries the failed task and answers the message.
  await setCurrentVersion(deploymentName, 'v2');
  const send = await sent;
  expect(send).toMatchObject({ code: 0, stdout: 'answered after the rollback\n' });
  expect(systemPromptOf(2)).toBe('You are versioned, build v2.');
  for (const session of sessions)
    expect(await versioningOf(client, session.workflowId)).toEqual({ behavior: 'VERSIONING_BEHAVIOR_AUTO_UPGRADE', build: 'v2' });

  // v4 becomes current: both sessions move there at their next message, and v4's agent answers it.
  await workers.start(workerEnv('v4', good));
  await setCurrentVersion(deploymentName, 'v4');
  for (const [index, session] of [incident, untouched].entries()) {
    bed.server.enqueue(openaiReply({ content: `answered on v4 (${index})` }));
    expect((await sendMessage(session, 'and now?')).answer).toBe(`answered on v4 (${index})`);
    expect(systemPromptOf(bed.server.requests.length - 1)).toBe('You are versioned, build v4.');
    expect(await versioningOf(client, session.workflowId)).toEqual({ behavior: 'VERSIONING_BEHAVIOR_AUTO_UPGRADE', build: 'v4' });
    // The session's newest run (continued as new at the message) is v4's alone.
    expect(new Set(taskBuilds(await fetchEvents(client, session.workflowId)))).toEqual(new Set(['v4']));
  }
});
