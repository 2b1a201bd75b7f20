import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { startAgent } from '../../client/start-agent';
import { sendMessage } from '../../client/send-message';
import { agentWorkflowType, approveUpdate, statusQuery } from '../../workflows/definitions';
import { bundleBuildId } from '../../worker/versioning';
import { workflowsPath } from '../../worker/agent-plugin';
import { runCli } from '../support/cli';
import { anthropicReply, openaiReply, type ReceivedRequest } from '../support/fake-model-server';
import { setCurrentVersion, taskBuilds, WorkerProcesses } from '../support/deployment-workers';
import { fetchEvents } from '../support/history';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// Worker Versioning on the real dev server, with the real worker entry point (`npm run worker`, worker/main.ts) in
// processes of its own: one-shot runs and a session start on build 1; build 2 (new instructions, one more tool, a
// workflow change behind patched()) becomes current; the pinned run finishes on build 1, the session's next message
// is answered by build 2; and build 3 (the same workflow change without a patch) is caught by `agent replay`.

const bed = useTestBed();
jest.setTimeout(240_000);
afterEach(() => expect(bed.server.refusals).toEqual([]));

const fixtures = path.join(__dirname, '..', 'fixtures', 'versioning');
const workers = new WorkerProcesses(() => bed.server.providerEnv);
afterAll(() => workers.stopAll());
const startWorker = (env: NodeJS.ProcessEnv) => workers.start(env);

/** Build n's workflow bundle: the agent workflow, with a test-only workflow change bundled in as an interceptor. */
async function bundle(directory: string, name: string, interceptor?: string): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger: new DefaultLogger('WARN'),
    ...(interceptor && { workflowInterceptorModules: [path.join(fixtures, interceptor)] }),
  });
  const file = path.join(directory, `${name}.js`);
  await writeFile(file, code);
  return file;
}

/** The build ids of the worker deployment versions that completed the run's workflow tasks, in order. */
async function runTaskBuilds(client: Client, workflowId: string, runId?: string): Promise<string[]> {
  return taskBuilds(
    runId ? (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events! : await fetchEvents(client, workflowId),
  );
}

async function failedTasks(client: Client, workflowId: string, runId: string): Promise<number> {
  const { events } = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return events!.filter((event) => event.workflowTaskFailedEventAttributes).length;
}

// Build 1's agent is on OpenAI's Chat Completions, build 2's on Anthropic's Messages.
const onAnthropic = (request: ReceivedRequest) => request.path.includes('/messages');
const systemPromptOf = (request: ReceivedRequest): string => {
  if (!onAnthropic(request)) return request.body.messages[0].content;
  const { system } = request.body;
  return typeof system === 'string' ? system : system.map((block: { text: string }) => block.text).join('');
};
const toolsOf = (request: ReceivedRequest): string[] =>
  (request.body.tools ?? [])
    .map((tool: { name?: string; function?: { name: string } }) => tool.name ?? tool.function!.name)
    .sort();

it('finishes pinned runs on build 1, moves sessions to build 2 at their next message, and the replay gate catches build 3', async () => {
  const { client } = bed.environment;
  const directory = await mkdtemp(path.join(os.tmpdir(), 'worker-versioning-'));
  const [bundle1, bundle2, bundle3] = await Promise.all([
    bundle(directory, 'build-1'),
    bundle(directory, 'build-2', 'patched-pause.ts'),
    bundle(directory, 'build-3', 'unpatched-pause.ts'),
  ]);
  const [build1, build2] = [bundleBuildId({ codePath: bundle1 })!, bundleBuildId({ codePath: bundle2 })!];
  expect(build1).not.toBe(build2);
  const deploymentName = `agents-${Date.now()}`;
  const taskQueue = uniqueTaskQueue('versioning');
  const workspace = await makeWorkspace({ 'notes.txt': 'written before the deploy' });
  const workerEnv = (build: string, agents: string) => ({
    AGENT_TASK_QUEUE: taskQueue,
    AGENT_DEPLOYMENT_NAME: deploymentName,
    AGENT_WORKFLOW_BUNDLE: build,
    AGENT_DEFINITIONS: path.join(fixtures, agents),
  });

  // Build 1 is deployed and current.
  const worker1 = await startWorker(workerEnv(bundle1, 'build-1-agents.ts'));
  await setCurrentVersion(deploymentName, build1);

  // A one-shot run asks to read a file and waits for approval; a session answers its first message.
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } }] }),
    openaiReply({ content: 'hello from build 1' }),
  );
  const oneShot = await startAgent(client, { agent: 'versioned', prompt: 'read notes.txt', workspace }, { taskQueue });
  await waitFor('the one-shot run to wait for approval', async () => {
    const status = await oneShot.query(statusQuery);
    return status.pendingApprovals.length === 1;
  });
  const session = await startAgent(client, { agent: 'versioned', session: {}, workspace }, { taskQueue });
  expect((await sendMessage(session, 'hello')).answer).toBe('hello from build 1');
  const sessionFirstRun = (await session.describe()).runId;

  // The gate before deploying build 2 (a patched change): every run replays.
  const gate2 = await runCli(['replay', '--query', `TaskQueue = '${taskQueue}'`], { AGENT_WORKFLOW_BUNDLE: bundle2 });
  expect(gate2).toMatchObject({ code: 0 });
  expect(gate2.stdout).toContain('2 runs replayed: 2 ok, 0 FAILED');

  // Build 2 is deployed and becomes current.
  await startWorker(workerEnv(bundle2, 'build-2-agents.ts'));
  await setCurrentVersion(deploymentName, build2);

  // The pinned run finishes on build 1: the approved read and the next model call happen there.
  bed.server.enqueue(openaiReply({ content: 'notes read on build 1' }));
  await oneShot.executeUpdate(approveUpdate, { args: [{}] });
  expect(await oneShot.result()).toMatchObject({ status: 'completed', answer: 'notes read on build 1' });
  expect(new Set(await runTaskBuilds(client, oneShot.workflowId))).toEqual(new Set([build1]));
  // Requests so far: the run's first call, the session's first turn, and the run's call after the deploy.
  const afterDeploy = bed.server.requests[2];
  expect(afterDeploy.body.messages.some((message: { role: string }) => message.role === 'tool')).toBe(true);
  expect(systemPromptOf(afterDeploy)).toContain('You are versioned, build 1.');
  expect(toolsOf(afterDeploy)).toEqual(['read_file']);

  // Build 1 has no open pinned run left: its worker goes. The session needs nothing of it.
  await workers.stop(worker1);

  // The session's next message is answered by build 2, with build 2's instructions and tools, on its provider.
  bed.server.enqueue(anthropicReply({ text: 'hello from build 2' }));
  expect((await sendMessage(session, 'and now?')).answer).toBe('hello from build 2');
  const sessionRequest = bed.server.requests.at(-1)!;
  expect(onAnthropic(sessionRequest)).toBe(true);
  expect(systemPromptOf(sessionRequest)).toContain('You are versioned, build 2.');
  expect(toolsOf(sessionRequest)).toEqual(['list_directory', 'read_file']);
  const sessionNow = (await session.describe()).runId;
  expect(sessionNow).not.toBe(sessionFirstRun);
  // Its first run moved to build 2 for the task that continued it as new; the new run is build 2's alone.
  expect(await runTaskBuilds(client, session.workflowId, sessionFirstRun)).toEqual(expect.arrayContaining([build1, build2]));
  expect(new Set(await runTaskBuilds(client, session.workflowId, sessionNow))).toEqual(new Set([build2]));
  // The conversation went on: build 2 was sent the first exchange too, in Anthropic's wire format.
  const conversation = JSON.stringify(sessionRequest.body.messages);
  for (const text of ['hello', 'hello from build 1', 'and now?'])
    expect(conversation).toContain(JSON.stringify(text).slice(1, -1));

  // Nothing failed: no workflow task of any run failed.
  const runs = [
    { workflowId: oneShot.workflowId, runId: (await oneShot.describe()).runId },
    { workflowId: session.workflowId, runId: sessionFirstRun },
    { workflowId: session.workflowId, runId: sessionNow },
  ];
  for (const run of runs) expect(await failedTasks(client, run.workflowId, run.runId)).toBe(0);
  await session.signal('endSession');
  expect(await session.result()).toMatchObject({ status: 'ended' });

  // Build 3 changes the workflow without a patch: the gate fails before its rollout, naming the runs it would break.
  const gate3 = await runCli(['replay', '--query', `TaskQueue = '${taskQueue}' AND WorkflowType = '${agentWorkflowType}'`], {
    AGENT_WORKFLOW_BUNDLE: bundle3,
  });
  expect(gate3.code).toBe(1);
  expect(gate3.stdout).toMatch(new RegExp(`${oneShot.workflowId} \\S+ FAILED: .*`));
  expect(gate3.stdout).toContain(`${session.workflowId} ${sessionFirstRun} FAILED`);
});
