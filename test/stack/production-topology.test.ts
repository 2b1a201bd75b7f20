import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { sendMessage } from '../../client/send-message';
import { startAgent, type AgentHandle } from '../../client/start-agent';
import { agentDataConverter } from '../../storage/data-converter';
import { startStack, type Stack } from '../../stack/stack';
import { launchBrowser, type Browser } from '../support/browser';
import { lastJsonLine, runCli } from '../support/cli';
import { newKeyEntry } from '../support/encryption';
import { anthropicReply, FakeModelServer, openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { agentOf } from '../support/script-by-agent';
import { readStepLog, stepHistory } from '../support/slow-step-tool';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';
import { WebUi } from '../support/web-ui';
import type { FakeStep } from '../support/fake-model-server';

// docker-compose.yml's topology as `npm run stack` runs it: the Temporal server on PostgreSQL (not the dev server),
// the namespace and search attribute the compose file registers, MinIO with the bucket, the Collector with the
// compose file's configuration, the codec server, the Web UI server and two workers (worker/main.ts with the
// compose file's worker environment), payloads encrypted. The model is the strict fake server.

const taskQueue = 'durable-agent'; // the compose file's default, which the stack's workers poll
const definitions = path.join(__dirname, 'stack-definitions.ts');
/** The tool activity's heartbeat timeout (30 s) after a worker dies, plus a loaded two-core machine. */
const afterWorkerDeathMs = 120_000;

let stack: Stack;
let fake: FakeModelServer;
let client: Client;
let connection: Connection;
let scratch: string;
let stepLog: string;
const keys = newKeyEntry('stack-key');

jest.setTimeout(300_000);

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'stack-test-'));
  // PostgreSQL runs as the postgres user when the tests run as root: it must be able to enter its directory.
  await chmod(scratch, 0o755);
  stepLog = path.join(scratch, 'steps.log');
  fake = await FakeModelServer.start();
  stack = await startStack({
    directory: path.join(scratch, 'stack'),
    workers: 2,
    freePorts: true,
    // What Compose reads from the host or .env: the model servers (passed through to the worker), the keys, the workspace.
    env: { ...process.env, ...fake.providerEnv, AGENT_ENCRYPTION_KEYS: keys, WORKSPACE_DIR: os.tmpdir() },
    // Each worker bundles its workflows at start, with the tracing interceptors, as `npm run worker` does.
    workerEnv: { AGENT_DEFINITIONS: definitions, SLOW_STEP_LOG: stepLog },
  });
  connection = await Connection.connect({ address: stack.temporal.address });
  client = new Client({ connection, namespace: 'default', dataConverter: agentDataConverter(hostEnv()) });
}, 900_000);

afterAll(async () => {
  await connection?.close();
  await stack?.stop();
  await fake?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

afterEach(() => expect(fake.refusals).toEqual([]));

/**
 * The host CLI's environment for the stack (docs/docker-compose.md's "from the host"): the workers' own settings too,
 * their definitions (which read SLOW_STEP_LOG) and workspace root, since the CLI checks each run against them before
 * it starts one (docs/agents.md).
 */
function cliSettings(): NodeJS.ProcessEnv {
  return {
    ...stack.clientEnvironment,
    AGENT_ENCRYPTION_KEYS: keys,
    AGENT_DEFINITIONS: definitions,
    SLOW_STEP_LOG: stepLog,
    AGENT_WORKSPACE_ROOT: os.tmpdir(),
  };
}
function hostEnv(): NodeJS.ProcessEnv {
  return { ...process.env, ...cliSettings() };
}
const cli = (args: string[]) => runCli(args, cliSettings());

/** Answers each agent from its own script: the lead and its subagent run as separate workflows. */
function script(scripts: Record<string, FakeStep[]>): void {
  fake.reset();
  fake.respondWith((request) => {
    const step = scripts[agentOf(request)]?.shift();
    return step ?? { status: 500, json: { error: { message: `no scripted answer for "${agentOf(request)}"` } } };
  });
}

async function startSession(workspace: string, name: string): Promise<AgentHandle> {
  return startAgent(
    client,
    { agent: 'lead', workspace, session: { idleTimeoutSeconds: 600 }, stream: true },
    { taskQueue, workflowId: `stack-${name}-${Date.now()}` },
  );
}

const steps = async () => stepHistory(await readStepLog(stepLog));

it('runs the compose file’s set-up: namespace retention, the search attribute, the bucket, the dynamic config', async () => {
  const namespace = await connection.workflowService.describeNamespace({ namespace: 'default' });
  expect(Number(namespace.config!.workflowExecutionRetentionTtl!.seconds)).toBe(168 * 3600);
  const attributes = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
  expect(attributes.customAttributes).toMatchObject({ AgentForkedFrom: expect.anything() });
  const system = await connection.workflowService.getSystemInfo({});
  expect(system.serverVersion).toBe(stack.compose.temporalVersion);
  // The server logs each dynamic config value it loads: eager activities, from docker/temporal-dynamic-config.yaml.
  const serverLog = await readFile(path.join(scratch, 'stack', 'temporal-server.log'), 'utf8');
  expect(serverLog).toMatch(/dynamic config changed for the key: system\.enableactivityeagerexecution .*value: true/);
});

it('carries a session of several messages through parallel tools, a subagent, an approval and a fork; show, history, watch and the Web UI read it', async () => {
  const workspace = await makeWorkspace({ 'alpha.txt': 'ALPHA-SECRET says hi', 'beta.txt': 'BETA says bye' });
  script({
    lead: [
      openaiReply({
        toolCalls: [
          { id: 'read_a', name: 'read_file', arguments: { path: 'alpha.txt' } },
          { id: 'read_b', name: 'read_file', arguments: { path: 'beta.txt' } },
        ],
      }),
      openaiReply({ content: 'alpha says hi, beta says bye' }),
      openaiReply({ toolCalls: [{ id: 'ask', name: 'researcher', arguments: { task: 'What does alpha.txt say?' } }] }),
      openaiReply({ content: 'The researcher says alpha says hi.' }),
      openaiReply({ toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'notes.txt', content: 'noted' } }] }),
      openaiReply({ content: 'notes.txt written' }),
      openaiReply({ content: 'FORKED answer' }),
    ],
    researcher: [
      anthropicReply({ toolCalls: [{ id: 'toolu_read', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
      anthropicReply({ text: 'alpha.txt says hi' }),
    ],
  });
  const session = await startSession(workspace, 'session');
  const id = session.workflowId;

  expect(await sendMessage(session, 'What do alpha.txt and beta.txt say?')).toMatchObject({
    status: 'completed',
    answer: 'alpha says hi, beta says bye',
  });
  // Both reads ran, and their results went back in one request, in the order the model asked for them.
  const toolResults = fake.requests[1].body.messages.filter((message: { role: string }) => message.role === 'tool');
  expect(
    toolResults.map((message: { tool_call_id: string; content: string }) => [message.tool_call_id, message.content]),
  ).toEqual([
    ['read_a', expect.stringContaining('ALPHA-SECRET says hi')],
    ['read_b', expect.stringContaining('BETA says bye')],
  ]);

  expect(await sendMessage(session, 'Ask the researcher about alpha.txt')).toMatchObject({
    answer: 'The researcher says alpha says hi.',
  });
  expect(fake.requests.filter((request) => agentOf(request) === 'researcher')).toHaveLength(2);

  // The write waits for a person; `agent approve` from the host releases it.
  const writing = sendMessage(session, 'Write notes.txt');
  await waitFor(
    'the write to wait for approval, then be approved',
    async () => (await cli(['approve', id, '--json'])).code === 0,
    {
      timeoutMs: 60_000,
      intervalMs: 1_000,
    },
  );
  expect(await writing).toMatchObject({ answer: 'notes.txt written' });
  expect(await readFile(path.join(workspace, 'notes.txt'), 'utf8')).toBe('noted');

  const forked = await cli(['fork', id, '--at', '4', '--prompt', 'Go on from the reads', '--json']);
  expect(forked.stderr).toBe(forked.code === 0 ? forked.stderr : '');
  expect(forked.code).toBe(0);
  const fork = lastJsonLine(forked.stdout) as { workflowId: string };
  // The fork records its source in the compose file's search attribute, queryable in PostgreSQL visibility.
  await waitFor(
    'the fork to be listed by AgentForkedFrom',
    async () => {
      for await (const execution of client.workflow.list({ query: `AgentForkedFrom = "${id}"` }))
        if (execution.workflowId === fork.workflowId) return true;
      return false;
    },
    { timeoutMs: 60_000, intervalMs: 1_000 },
  );

  const ended = await cli(['end', id, '--json']);
  expect(ended.code).toBe(0);
  expect(lastJsonLine(ended.stdout)).toMatchObject({ status: 'ended', turns: 3 });

  const shown = await cli(['show', id]);
  expect(shown.code).toBe(0);
  for (const text of [
    'What do alpha.txt and beta.txt say?',
    'ALPHA-SECRET says hi',
    'The researcher says alpha says hi.',
    'notes.txt written',
  ])
    expect(shown.stdout).toContain(text);

  const historyFile = path.join(scratch, 'history.json');
  const saved = await cli(['history', id, '--out', historyFile]);
  expect(saved.code).toBe(0);
  const history = await readFile(historyFile, 'utf8');
  expect(JSON.parse(history).events.length).toBeGreaterThan(20);
  // Encrypted at rest in PostgreSQL: the file's text is nowhere in the stored history.
  expect(history).not.toContain('ALPHA-SECRET');
  const rawEvents = JSON.stringify(await fetchEvents(new Client({ connection, namespace: 'default' }), id));
  expect(rawEvents).not.toContain('ALPHA-SECRET');

  const watched = await cli(['watch', id, '--json']);
  expect(watched.code).toBe(0);
  // The stream keeps the last turns of a session (it is cut at each turn): the approved write, its turn's end, the run's end.
  const events = watched.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(events).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ type: 'approval_decided', approved: true }),
      expect.objectContaining({ type: 'tool_start', summary: expect.stringContaining('write_file') }),
      expect.objectContaining({ type: 'turn_end', answer: 'notes.txt written' }),
    ]),
  );
  expect(events.at(-1)).toMatchObject({ type: 'run_end' });

  // Traces reached the collector, which printed them with the compose file's debug exporter.
  await waitFor(
    'the collector to print the run’s spans',
    async () => (await readFile(stack.collector.logFile, 'utf8')).includes(id),
    {
      timeoutMs: 30_000,
      intervalMs: 500,
    },
  ).catch(async () => {
    throw new Error(
      `no span naming ${id} in ${stack.collector.logFile}:\n${(await readFile(stack.collector.logFile, 'utf8')).slice(-3000)}`,
    );
  });

  await expectWebUiShows(id, 'ALPHA-SECRET says hi');
});

it('carries on across a Temporal server crash (SIGKILL) and restart mid-turn', async () => {
  const workspace = await makeWorkspace();
  const gate = path.join(workspace, 'open');
  script({
    lead: [
      openaiReply({
        toolCalls: [{ id: 's1', name: 'slow_step', arguments: { label: 'across-crash', ms: 0, waitForFile: gate } }],
      }),
      openaiReply({ content: 'done after the crash' }),
    ],
  });
  const session = await startSession(workspace, 'server-crash');
  const reply = sendMessage(session, 'Do the step');
  reply.catch(() => {}); // awaited below; this only keeps a rejection from being reported twice
  await waitFor('the step to start', async () => (await steps())['across-crash']?.length === 1, { timeoutMs: 90_000 });

  await stack.temporal.crashAndRestart();
  await writeFile(gate, '');

  // The message's update was accepted before the crash: it is in the history, and the pending call outlives the restart.
  expect(await reply).toMatchObject({ status: 'completed', answer: 'done after the crash' });
  expect((await steps())['across-crash']).toEqual([expect.stringMatching(/^start@/), expect.stringMatching(/^finish@/)]);
  await cli(['end', session.workflowId]);
});

it(
  'finishes a turn on the second worker when the one running its tool call is killed',
  async () => {
    const workspace = await makeWorkspace();
    const gate = path.join(workspace, 'open');
    script({
      lead: [
        openaiReply({
          toolCalls: [{ id: 's2', name: 'slow_step', arguments: { label: 'worker-dies', ms: 0, waitForFile: gate } }],
        }),
        openaiReply({ content: 'done on the other worker' }),
      ],
    });
    const session = await startSession(workspace, 'worker-kill');
    const reply = sendMessage(session, 'Do the step');
    const started = await waitFor('the step to start', async () => (await steps())['worker-dies']?.[0], { timeoutMs: 90_000 });
    const victimPid = Number(/worker-(\d+)/.exec(started)![1]);
    const victim = stack.workers.find((worker) => worker.pid === victimPid);
    expect(victim).toBeDefined();
    await victim!.kill();
    await writeFile(gate, '');

    expect(await reply).toMatchObject({ status: 'completed', answer: 'done on the other worker' });
    const history = (await steps())['worker-dies'];
    const survivor = stack.workers.find((worker) => worker.pid !== victimPid)!;
    expect(history).toEqual([`start@worker-${victimPid}`, `start@worker-${survivor.pid}`, `finish@worker-${survivor.pid}`]);
    await cli(['end', session.workflowId]);
  },
  300_000 + afterWorkerDeathMs,
);

async function expectWebUiShows(workflowId: string, decryptedText: string): Promise<void> {
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    // The UI's codec endpoint is the compose file's http://localhost:<port>: the browser's address of the codec server.
    const ui = new WebUi(browser, stack.webUiUrl, stack.codecServerUrl!.replace('127.0.0.1', 'localhost'));
    const { runId } = await client.workflow.getHandle(workflowId).describe();
    await ui.open({ workflowId, runId }, 'history');
    expect(await ui.status((text) => text.length > 0)).toMatch(/Completed/);
    // The UI asks the stack's codec server to decrypt, as the compose file wires them.
    expect(await ui.mainText((text) => text.includes(decryptedText))).toContain(decryptedText);
    expect(ui.codecRequests.length).toBeGreaterThan(0);
  } catch (error) {
    await browser?.screenshot('stack-web-ui').catch(() => undefined);
    throw error;
  } finally {
    await browser?.close();
  }
}
