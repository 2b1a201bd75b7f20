import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { AgentInput } from '../../core/resolve-input';
import { startAgent, type AgentHandle } from '../../client/start-agent';
import { sendMessage } from '../../client/send-message';
import { agentDataConverter } from '../../storage/data-converter';
import { defineAgent } from '../../agents/define-agent';
import { builtInTools } from '../../tools';
import { statusQuery } from '../../workflows/definitions';
import { createAgentWorker } from '../../worker/create-worker';
import { launchBrowser, type Browser } from '../support/browser';
import { startCodecServer, type CodecServerProcess } from '../support/codec-server-process';
import { startDevServer, type DevServer } from '../support/dev-server-process';
import { freePorts } from '../../cli/dev-server/free-port';
import { newKeyEntry } from '../support/encryption';
import { FakeModelServer, openaiReply, type FakeStep } from '../support/fake-model-server';
import { encodingOf, fetchRawHistory } from '../support/raw-history';
import { slowStepTool } from '../support/slow-step-tool';
import { waitFor } from '../support/wait-for';
import { WebUi, type RunRef } from '../support/web-ui';
import { makeWorkspace } from '../support/workspace';

// What a person sees in the Temporal Web UI, read from headless chromium: a dev
// server of this test's own with the UI on, pointed (--ui-codec-endpoint) at
// `agent codec-server`, and a worker that encrypts every payload. Each run the
// test inspects is started in beforeAll by startRun(); a new check is a new run
// there and an `it` below. Screenshots land in .test-tmp/screenshots/.

const taskQueue = 'web-ui';
const model = 'openai:gpt-4o-mini';

let scratch: string;
let codec: CodecServerProcess;
let server: DevServer;
let connection: Connection;
let nativeConnection: NativeConnection;
let modelServer: FakeModelServer;
let worker: Worker;
let workerRunning: Promise<void>;
let client: Client;
let workspace: string;
let browser: Browser;
let ui: WebUi;

/** Scripts the model's answers and starts a run the way the CLI does (static summary and details included). */
async function startRun(
  workflowId: string,
  input: Omit<AgentInput, 'model' | 'workspace'>,
  answers: FakeStep[],
): Promise<AgentHandle> {
  modelServer.enqueue(...answers);
  return startAgent(client, { model, workspace, ...input }, { taskQueue, workflowId });
}

// Wait conditions for the UI's readings; the expect() after each reading is the check.
const including =
  (...parts: string[]) =>
  (text: string) =>
    parts.every((part) => text.includes(part));
const exactly = (expected: string) => (text: string) => text === expected;
const sameRows = (expected: string[]) => (rows: string[]) => JSON.stringify(rows) === JSON.stringify(expected);

function ref(handle: AgentHandle): RunRef {
  return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
}

let finished: AgentHandle;
let running: AgentHandle;
let session: AgentHandle;
let withSubagent: AgentHandle;
let gate: string;

const researcher = defineAgent({
  name: 'researcher',
  description: 'Reads files and reports what they say.',
  model,
  tools: ['read_file'],
});
const coordinator = defineAgent({
  name: 'coordinator',
  description: 'Delegates to the researcher.',
  model,
  subagents: [researcher],
});

beforeAll(async () => {
  // First, so a machine without chromium fails here, saying so, before any server starts.
  browser = await launchBrowser();
  scratch = await mkdtemp(path.join(os.tmpdir(), 'web-ui-test-'));
  const keys = newKeyEntry('ui-key');
  const [grpcPort, uiPort] = await freePorts(2);
  const uiBase = `http://127.0.0.1:${uiPort}`;
  codec = await startCodecServer(['--cors-origin', uiBase], { AGENT_ENCRYPTION_KEYS: keys });
  server = await startDevServer({
    port: grpcPort,
    dbFilename: path.join(scratch, 'temporal.db'),
    ui: { port: uiPort, codecEndpoint: codec.url },
  });
  await waitFor('the Web UI to serve', () => fetch(uiBase).then((response) => response.ok), { timeoutMs: 60_000 });

  connection = await Connection.connect({ address: server.address });
  nativeConnection = await NativeConnection.connect({ address: server.address });
  modelServer = await FakeModelServer.start();
  const dataConverter = agentDataConverter({
    ...process.env,
    AGENT_ENCRYPTION_KEYS: keys,
    AGENT_PAYLOAD_DIR: path.join(scratch, 'payloads'),
  });
  worker = await createAgentWorker({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    tools: [...builtInTools, slowStepTool(path.join(scratch, 'steps.log'), 'ui')],
    agents: [coordinator],
    env: modelServer.providerEnv,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    overrides: { dataConverter },
  });
  workerRunning = worker.run();
  client = new Client({ connection, namespace: 'default', dataConverter });
  workspace = await makeWorkspace({ 'alpha.txt': 'ALPHA-CONTENT the alpha file', 'beta.txt': 'BETA-CONTENT' });

  finished = await startRun('ui-finished', { prompt: 'What does alpha.txt say?', tools: ['read_file'] }, [
    openaiReply({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
    openaiReply({ content: 'ANSWER-UI the alpha file says hello' }),
  ]);
  await finished.result();

  // A coordinator that asks its researcher: a child workflow, `<id>/<tool call id>`.
  withSubagent = await startRun('ui-subagent', { agent: 'coordinator', prompt: 'Ask the researcher about alpha.txt' }, [
    openaiReply({ toolCalls: [{ id: 'ask', name: 'researcher', arguments: { task: 'What does alpha.txt say?' } }] }),
    openaiReply({ content: 'alpha.txt says hello' }),
    openaiReply({ content: 'The researcher says alpha.txt says hello.' }),
  ]);
  await withSubagent.result();

  // A session three turns in: turns 1 and 2 call the model twice each (a tool, then the answer), turn 3 once.
  const readAlpha = (id: string) => openaiReply({ toolCalls: [{ id, name: 'read_file', arguments: { path: 'alpha.txt' } }] });
  session = await startRun('ui-session', { session: {}, tools: ['read_file'] }, [
    readAlpha('t1'),
    openaiReply({ content: 'one' }),
    readAlpha('t2'),
    openaiReply({ content: 'two' }),
    openaiReply({ content: 'three' }),
  ]);
  for (const message of ['first', 'second', 'third']) await sendMessage(session, message);

  // Held on its second turn by a tool that waits for the gate file.
  gate = path.join(scratch, 'gate');
  running = await startRun('ui-running', { prompt: 'Read beta.txt, then run the long job', tools: ['read_file', 'slow_step'] }, [
    openaiReply({ toolCalls: [{ id: 'b1', name: 'read_file', arguments: { path: 'beta.txt' } }] }),
    openaiReply({ toolCalls: [{ id: 's1', name: 'slow_step', arguments: { label: 'long job', ms: 0, waitForFile: gate } }] }),
    openaiReply({ content: 'done' }),
  ]);
  await waitFor('the long job to start', () => readFile(path.join(scratch, 'steps.log'), 'utf8').catch(() => ''));

  ui = new WebUi(browser, uiBase, codec.url);
});

afterAll(async () => {
  await browser?.close();
  if (gate) await writeFile(gate, '');
  await running?.result().catch(() => undefined);
  await session?.signal('endSession').catch(() => undefined);
  worker?.shutdown();
  await workerRunning;
  await nativeConnection?.close();
  await connection?.close();
  await modelServer?.close();
  await server?.stop();
  await codec?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('a finished run', () => {
  it('shows the task as its summary and the run settings as its details', async () => {
    await ui.open(ref(finished), 'user-metadata');
    expect(await ui.status(exactly('Completed'))).toBe('Completed');
    expect(await ui.markdownUnder('Summary', exactly('What does alpha.txt say?'))).toBe('What does alpha.txt say?');
    const details = await ui.markdownUnder('Details', including('workspace'));
    expect(details).toContain(`model ${model}`);
    expect(details).toContain('tools read_file');
    expect(details).toContain(`workspace ${workspace}`);
    await ui.browser.screenshot('finished-user-metadata');
  });

  it('names each activity by what it did', async () => {
    await ui.open(ref(finished), 'user-metadata');
    const expected = [
      `Activity prepare agent default · ${model} Completed`,
      `Activity ${model} iteration 1 Completed`,
      'Activity read_file alpha.txt Completed',
      `Activity ${model} iteration 2 Completed`,
    ];
    expect(await ui.eventsWithMetadata(sameRows(expected))).toEqual(expected);
  });

  it('shows the last current details: finished, at iteration 2', async () => {
    await ui.open(ref(finished), 'user-metadata');
    const current = await ui.markdownUnder('Current Details', including('finished'));
    expect(current).toContain(`finished · iteration 2 of 20 · model ${model}`);
  });

  it('shows the input and result decrypted by the codec server, while history holds only ciphertext', async () => {
    ui.codecRequests.length = 0;
    await ui.open(ref(finished), 'history');
    const input = '"prompt": "What does alpha.txt say?"';
    expect(await ui.payloadUnder('Input', including(input))).toContain(input);
    const answer = '"answer": "ANSWER-UI the alpha file says hello"';
    expect(await ui.payloadUnder('Result', including(answer))).toContain(answer);
    const history = await ui.mainText(including('read_file alpha.txt', 'ALPHA-CONTENT'));
    expect(history).toContain('read_file alpha.txt');
    expect(history).toContain('"ALPHA-CONTENT the alpha file"');
    await ui.browser.screenshot('finished-history');
    expect(ui.codecRequests).toContain('/decode');

    const raw = await fetchRawHistory(connection, finished.workflowId);
    expect(raw.bytes.toString('latin1')).not.toMatch(/ANSWER-UI|ALPHA-CONTENT|What does alpha\.txt say|read_file alpha\.txt/);
    expect(new Set(raw.payloads.map(encodingOf))).toEqual(new Set(['binary/encrypted']));
  });
});

describe('a session', () => {
  it('labels each model call by its turn and its iteration within the turn, and the current details likewise', async () => {
    await ui.open(ref(session), 'user-metadata');
    const events = [
      `Activity prepare agent default · ${model} Completed`,
      `Activity ${model} turn 1 · iteration 1 Completed`,
      'Activity read_file alpha.txt Completed',
      `Activity ${model} turn 1 · iteration 2 Completed`,
      `Activity ${model} turn 2 · iteration 1 Completed`,
      'Activity read_file alpha.txt Completed',
      `Activity ${model} turn 2 · iteration 2 Completed`,
      `Activity ${model} turn 3 · iteration 1 Completed`,
    ];
    expect(await ui.eventsWithMetadata(sameRows(events))).toEqual(events);
    const current = await ui.markdownUnder('Current Details', including('waiting for message'));
    expect(current).toContain(`waiting for message · turn 3 · iteration 1 of 20 · model ${model}`);
    expect(current).toContain('session: 3 message(s) answered');
    await ui.browser.screenshot('session-user-metadata');
  });
});

describe('a run with a subagent', () => {
  it("lists the subagent's child workflow under Relationships, and the child names its parent", async () => {
    await ui.open(ref(withSubagent), 'relationships');
    const relationships = await ui.mainText(including('ui-subagent/ask'));
    expect(relationships).toContain('ui-subagent/ask');
    await ui.browser.screenshot('subagent-relationships');

    const child = await client.workflow.getHandle('ui-subagent/ask').describe();
    await ui.open({ workflowId: child.workflowId, runId: child.runId }, 'user-metadata');
    expect(await ui.markdownUnder('Summary', including('researcher'))).toBe('subagent researcher: What does alpha.txt say?');
    await ui.open({ workflowId: child.workflowId, runId: child.runId }, 'relationships');
    expect(await ui.mainText(including('ui-subagent'))).toContain('ui-subagent');
    await ui.browser.screenshot('subagent-child-relationships');
  });
});

describe('a running run', () => {
  it('shows it running, with current details naming the phase, the iteration and the tool in flight', async () => {
    const status = await running.query(statusQuery);
    expect(status).toMatchObject({ phase: 'running_tools', iteration: 2, toolCallsInFlight: ['slow_step long job'] });

    await ui.open(ref(running), 'user-metadata');
    expect(await ui.status(exactly('Running'))).toBe('Running');
    const summary = 'Read beta.txt, then run the long job';
    expect(await ui.markdownUnder('Summary', exactly(summary))).toBe(summary);
    const current = await ui.markdownUnder('Current Details', including('tools running'));
    expect(current).toContain(`running tools · iteration 2 of 20 · model ${model}`);
    expect(current).toContain('tools running: slow_step long job');
    const events = [
      `Activity prepare agent default · ${model} Completed`,
      `Activity ${model} iteration 1 Completed`,
      'Activity read_file beta.txt Completed',
      `Activity ${model} iteration 2 Completed`,
      'Activity slow_step long job Scheduled',
    ];
    expect(await ui.eventsWithMetadata(sameRows(events))).toEqual(events);
    await ui.browser.screenshot('running-user-metadata');
  });

  it('lists the tool call in flight as a pending activity, and its summary in the history', async () => {
    await ui.open(ref(running), 'pending-activities');
    const pending = await ui.mainText(including('slow_step', 'Attempt'));
    expect(pending).toContain('slow_step');
    expect(pending).toMatch(/Attempt\s+1 of 3/);
    await ui.browser.screenshot('running-pending-activities');

    await ui.open(ref(running), 'history');
    const input = '"prompt": "Read beta.txt, then run the long job"';
    expect(await ui.payloadUnder('Input', including(input))).toContain(input);
    expect(await ui.mainText(including('slow_step long job'))).toContain('slow_step long job');
    await ui.browser.screenshot('running-history');
  });
});
