import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { CollectorProcess } from '../support/otel-collector/collector-process';
import { sendMessage } from '../../client/send-message';
import { startAgent } from '../../client/start-agent';
import { endSessionSignal } from '../../workflows/definitions';
import { AgentPlugin, workflowsPath } from '../../worker/agent-plugin';
import { collect, lastJsonLine, runCli } from '../support/cli';
import {
  only,
  named,
  parentOf,
  readExportedSpans,
  startTestCollector,
  runTrace,
  type ExportedSpan,
} from '../support/exported-spans';
import { anthropicError, anthropicReply, FakeModelServer, openaiReply } from '../support/fake-model-server';
import { uniqueTaskQueue } from '../support/temporal';
import { withTracedWorker } from '../support/traced-worker';
import { typescriptArgs } from '../support/typescript-process';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';
import { quietBundlerLogger } from '../support/quiet-bundler-logger';

const projectRoot = path.join(__dirname, '..', '..');

let collector: CollectorProcess;
let server: FakeModelServer;
/** A workflow bundle built with the AgentPlugin while tracing is on: it has the OpenTelemetry workflow interceptors. */
let tracedBundle: string;
let libraryPlugin: AgentPlugin;

/** The library worker's tracing under test: the plugin, and the bundle built with it. */
const library = () => ({ plugin: libraryPlugin, bundlePath: tracedBundle });
const tracingEnv = (serviceName: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_SERVICE_NAME: serviceName });

beforeAll(async () => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'agent-tracing-'));
  collector = await startTestCollector(path.join(directory, 'spans.jsonl'));
  server = await FakeModelServer.start();
  // This test process traces too (the library worker below), to the same collector.
  libraryPlugin = new AgentPlugin({ env: { ...tracingEnv('agent-library'), ...server.providerEnv }, workspaceRoot: os.tmpdir() });
  const bundle = await bundleWorkflowCode({ workflowsPath, plugins: [libraryPlugin], logger: quietBundlerLogger });
  tracedBundle = path.join(directory, 'traced-workflow-bundle.js');
  await writeFile(tracedBundle, bundle.code);
});
beforeEach(() => server.reset());
afterAll(async () => {
  await libraryPlugin?.tracing?.flush();
  await server?.close();
  await collector?.stop();
});

/** A run that reads a file and answers: two model calls and one tool call. */
function scriptReadFileRun(): void {
  server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call-alpha', name: 'read_file', arguments: { path: 'alpha.txt' } }], inputTokens: 111 }),
    openaiReply({ content: 'The file says alpha!', inputTokens: 222 }),
  );
}

/** Waits until the collector has the run's whole trace (its workflow span ends last), and returns it with every span received. */
async function exportedTrace(workflowId: string, expectedSpans = 13): Promise<{ trace: ExportedSpan[]; all: ExportedSpan[] }> {
  try {
    return await waitFor(`the trace of ${workflowId} in the collector's file`, async () => {
      const all = await readExportedSpans(collector.spansFile);
      const trace = runTrace(all, workflowId);
      return trace.some((span) => span.name === 'RunWorkflow:agentWorkflow') && trace.length >= expectedSpans && { trace, all };
    });
  } catch (error) {
    const all = await readExportedSpans(collector.spansFile);
    const naming = all.filter(
      (span) => span.attributes.temporalWorkflowId === workflowId || runTrace(all, workflowId).includes(span),
    );
    throw new Error(
      `${(error as Error).message}; spans so far: ${naming.map((span) => `${span.name} (${span.service})`).join(', ') || 'none'}`,
      { cause: error },
    );
  }
}

/**
 * The shape every traced run has: client span → workflow span → activity spans,
 * each model call's GenAI span under its callModel activity, the tool call's under its read_file activity.
 */
function expectReadFileTrace({ trace, all }: { trace: ExportedSpan[]; all: ExportedSpan[] }, workflowId: string): void {
  // One trace per run: every span that names the run is in it (but queries', which are the CLI's own reads). Following the
  // run's stream makes none: its polls are the CLI watching, not the run's work (client/follow-stream.ts runs them untraced).
  const naming = all.filter(
    (span) => span.attributes.temporalWorkflowId === workflowId && !span.name.startsWith('QueryWorkflow:'),
  );
  expect(naming.filter((span) => !trace.includes(span))).toEqual([]);
  expect(trace).toHaveLength(13);
  // Every span once: nothing was exported twice, replays included.
  expect(new Set(trace.map((span) => span.spanId)).size).toBe(trace.length);

  const start = only(trace, 'StartWorkflow:agentWorkflow');
  expect(start.parentSpanId).toBeUndefined();
  const run = only(trace, 'RunWorkflow:agentWorkflow');
  expect(run.parentSpanId).toBe(start.spanId);

  for (const activity of ['prepareRun', 'callModel', 'read_file']) {
    for (const scheduled of named(trace, `StartActivity:${activity}`)) expect(scheduled.parentSpanId).toBe(run.spanId);
    for (const executed of named(trace, `RunActivity:${activity}`)) {
      expect(parentOf(trace, executed)?.name).toBe(`StartActivity:${activity}`);
      expect(executed.attributes.temporalWorkflowId).toBe(workflowId);
    }
  }
  expect(named(trace, 'StartActivity:callModel')).toHaveLength(2);
  expect(named(trace, 'RunActivity:callModel')).toHaveLength(2);

  const modelCalls = named(trace, 'chat gpt-4o-mini');
  expect(modelCalls).toHaveLength(2);
  for (const call of modelCalls) {
    expect(parentOf(trace, call)?.name).toBe('RunActivity:callModel');
    expect(call.kind).toBe('client');
    expect(call.status).not.toBe('error');
  }
  const byInput = (tokens: number) => modelCalls.find((call) => call.attributes['gen_ai.usage.input_tokens'] === tokens)!;
  expect(byInput(111).attributes).toMatchObject({
    'gen_ai.operation.name': 'chat',
    'gen_ai.system': 'openai',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.usage.input_tokens': 111,
    'gen_ai.usage.output_tokens': 20,
    'gen_ai.response.finish_reasons': ['tool_calls'],
    'gen_ai.conversation.id': workflowId,
  });
  expect(byInput(222).attributes).toMatchObject({
    'gen_ai.system': 'openai',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.usage.output_tokens': 20,
    'gen_ai.response.finish_reasons': ['stop'],
  });

  const toolCall = only(trace, 'execute_tool read_file');
  expect(parentOf(trace, toolCall)?.name).toBe('RunActivity:read_file');
  expect(toolCall.kind).toBe('internal');
  expect(toolCall.attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'read_file',
    'gen_ai.tool.call.id': 'call-alpha',
    'gen_ai.tool.type': 'function',
  });
}

it('traces an agent run from the CLI as one trace: client, workflow, activities, model calls and the tool call', async () => {
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha!' });
  scriptReadFileRun();
  const run = await runCli(['run', 'What does alpha.txt say?', '--workspace', workspace, '--json'], {
    ...server.providerEnv,
    ...tracingEnv('agent-cli'),
    // No worker polls this queue: the CLI runs its own, which traces with the same settings.
    AGENT_TASK_QUEUE: uniqueTaskQueue('tracing-cli'),
    AGENT_WORKFLOW_BUNDLE: tracedBundle,
  });
  expect(run.stderr).not.toContain('tracing:');
  expect(run.code).toBe(0);
  const { workflowId, answer } = lastJsonLine(run.stdout);
  expect(answer).toBe('The file says alpha!');

  // The CLI has exited: it sent every span before it did.
  const exported = await exportedTrace(String(workflowId));
  expectReadFileTrace(exported, String(workflowId));
  expect(new Set(exported.trace.map((span) => span.service))).toEqual(new Set(['agent-cli']));
  // Names, ids and counts only: not the prompt, the file the tool read, or the answer.
  for (const text of ['What does alpha.txt say?', 'alpha!']) expect(JSON.stringify(exported.all)).not.toContain(text);
});

it('follows a subagent into its child workflow within the same trace, each model call naming its agent', async () => {
  const workspace = await makeWorkspace();
  server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call-writer', name: 'writer', arguments: { task: 'write one line' } }], inputTokens: 11 }),
    openaiReply({ content: 'One line.', inputTokens: 22 }),
    openaiReply({ content: 'The writer wrote: One line.', inputTokens: 33 }),
  );
  const run = await runCli(
    ['run', 'Have the writer write a line', '--agent', 'coordinator', '--workspace', workspace, '--json'],
    {
      ...server.providerEnv,
      ...tracingEnv('agent-cli'),
      AGENT_DEFINITIONS: path.join(projectRoot, 'test', 'fixtures', 'research-team.ts'),
      AGENT_TASK_QUEUE: uniqueTaskQueue('tracing-subagent'),
      AGENT_WORKFLOW_BUNDLE: tracedBundle,
    },
  );
  expect(run.code).toBe(0);
  const workflowId = String(lastJsonLine(run.stdout).workflowId);
  const { trace } = await exportedTrace(workflowId, 12);

  const runs = named(trace, 'RunWorkflow:agentWorkflow');
  expect(runs).toHaveLength(2);
  const parentRun = runs.find((span) => span.parentSpanId === only(trace, 'StartWorkflow:agentWorkflow').spanId)!;
  const childRun = runs.find((span) => span !== parentRun)!;
  const startChild = only(trace, 'StartChildWorkflow:agentWorkflow');
  expect(startChild.parentSpanId).toBe(parentRun.spanId);
  expect(childRun.parentSpanId).toBe(startChild.spanId);
  const modelCalls = named(trace, 'chat gpt-4o-mini');
  const agentOf = (tokens: number) => modelCalls.find((call) => call.attributes['gen_ai.usage.input_tokens'] === tokens)!;
  expect(agentOf(11).attributes['gen_ai.agent.name']).toBe('coordinator');
  expect(agentOf(22).attributes['gen_ai.agent.name']).toBe('writer');
  expect(agentOf(33).attributes['gen_ai.agent.name']).toBe('coordinator');
  // The writer's call is under the child run: its activity was scheduled by the child workflow.
  const writerActivity = parentOf(trace, agentOf(22))!;
  expect(parentOf(trace, parentOf(trace, writerActivity)!)?.spanId).toBe(childRun.spanId);
  expect(parentOf(trace, parentOf(trace, parentOf(trace, agentOf(11))!)!)?.spanId).toBe(parentRun.spanId);
});

it('continues the client’s trace in `npm run worker` on another process, each under its own service name, and sends the last spans as it stops', async () => {
  const taskQueue = uniqueTaskQueue('tracing-worker');
  const worker = spawn(process.execPath, typescriptArgs('worker/main.ts'), {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      AGENT_WORKSPACE_ROOT: os.tmpdir(),
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
      AGENT_TASK_QUEUE: taskQueue,
      AGENT_WORKFLOW_BUNDLE: tracedBundle,
      AGENT_TRANSCRIPT_DIR: process.env.AGENT_TRANSCRIPT_DIR,
      AGENT_PAYLOAD_DIR: process.env.AGENT_PAYLOAD_DIR,
      ...server.providerEnv,
      ...tracingEnv('agent-worker'),
      // The SDK's own variable: no batch is due during this test, so the spans leave when the worker stops.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = collect(worker);
  let stderr = '';
  worker.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await waitFor('the worker to start polling', () => stderr.includes(`worker polling task queue "${taskQueue}"`), {
      timeoutMs: 60_000,
    });
    expect(stderr).toContain(`worker tracing: OTLP to ${collector.endpoint}/v1/traces as service "agent-worker"`);

    const workspace = await makeWorkspace({ 'alpha.txt': 'alpha!' });
    scriptReadFileRun();
    const run = await runCli(['run', 'What does alpha.txt say?', '--workspace', workspace, '--json'], {
      ...tracingEnv('agent-client'),
      AGENT_TASK_QUEUE: taskQueue,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('running one in this process');
    const workflowId = String(lastJsonLine(run.stdout).workflowId);
    // The CLI has sent its span; the worker holds its own until a batch is due, or until it stops.
    const beforeStop = await waitFor('the CLI’s span', async () => {
      const trace = runTrace(await readExportedSpans(collector.spansFile), workflowId);
      return trace.length > 0 && trace;
    });
    expect(beforeStop.map((span) => span.name)).toEqual(['StartWorkflow:agentWorkflow']);
    worker.kill('SIGTERM');
    expect((await exited).code).toBe(0);

    const exported = await exportedTrace(workflowId);
    expectReadFileTrace(exported, workflowId);
    expect(only(exported.trace, 'StartWorkflow:agentWorkflow').service).toBe('agent-client');
    const workerSpans = exported.trace.filter((span) => span.name !== 'StartWorkflow:agentWorkflow');
    expect(new Set(workerSpans.map((span) => span.service))).toEqual(new Set(['agent-worker']));
  } finally {
    worker.kill('SIGTERM');
    await exited;
  }
});

it('traces a library worker with the AgentPlugin and a client with the plugin; replaying every task exports nothing twice', async () => {
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha!' });
  scriptReadFileRun();
  // Every workflow task replays the run from its first event: workflow spans are made again each time.
  const replaying = { ...library(), workerOptions: { maxCachedWorkflows: 0 } };
  const handle = await withTracedWorker(replaying, 'tracing-library', async (client, taskQueue) => {
    const started = await startAgent(
      client,
      { prompt: 'What does alpha.txt say?', model: 'openai:gpt-4o-mini', tools: ['read_file'], workspace },
      { taskQueue },
    );
    expect(await started.result()).toMatchObject({ answer: 'The file says alpha!' });
    return started;
  });
  const exported = await exportedTrace(handle.workflowId);
  expectReadFileTrace(exported, handle.workflowId);
  expect(new Set(exported.trace.map((span) => span.service))).toEqual(new Set(['agent-library']));
});

it('keeps a session message’s model call in the run’s trace; the message itself is a trace of the client that sent it', async () => {
  server.enqueue(openaiReply({ content: 'Hello there', inputTokens: 444 }));
  const workspace = await makeWorkspace();
  const handle = await withTracedWorker(library(), 'tracing-session', async (client, taskQueue) => {
    const started = await startAgent(
      client,
      { model: 'openai:gpt-4o-mini', workspace, session: { idleTimeoutSeconds: 60 } },
      { taskQueue },
    );
    expect((await sendMessage(started, 'Hi')).answer).toBe('Hello there');
    await started.signal(endSessionSignal);
    await started.result();
    return started;
  });
  const { trace, all } = await exportedTrace(handle.workflowId, 5);
  const modelCall = only(trace, 'chat gpt-4o-mini');
  expect(modelCall.attributes['gen_ai.usage.input_tokens']).toBe(444);
  expect(parentOf(trace, parentOf(trace, parentOf(trace, modelCall)!)!)?.name).toBe('RunWorkflow:agentWorkflow');
  const update = all.find(
    (span) => span.name === 'StartWorkflowUpdate:sendMessage' && span.attributes.temporalWorkflowId === handle.workflowId,
  )!;
  expect(update.traceId).not.toBe(modelCall.traceId);
  expect(all.some((span) => span.name === 'HandleUpdate:sendMessage' && span.traceId === update.traceId)).toBe(true);
});

it('makes one GenAI span per Anthropic call attempt, not the SDK’s own as well; a refused attempt’s span carries the error', async () => {
  server.enqueue(
    anthropicError(429, 'slow down', { 'retry-after': '1' }),
    anthropicReply({ text: 'Hello from Claude', inputTokens: 321 }),
  );
  const workspace = await makeWorkspace();
  const handle = await withTracedWorker(library(), 'tracing-anthropic', async (client, taskQueue) => {
    const started = await startAgent(
      client,
      { prompt: 'Say hello', model: 'anthropic:claude-haiku-4-5', workspace },
      { taskQueue },
    );
    expect(await started.result()).toMatchObject({ answer: 'Hello from Claude' });
    return started;
  });
  const { trace } = await exportedTrace(handle.workflowId, 9);

  expect(named(trace, 'StartActivity:callModel')).toHaveLength(1);
  expect(named(trace, 'RunActivity:callModel')).toHaveLength(2);
  const inference = trace.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
  expect(inference.map((span) => span.name)).toEqual(['chat claude-haiku-4-5', 'chat claude-haiku-4-5']);
  const [refused, answered] = inference.sort((a, b) => (a.status === 'error' ? -1 : b.status === 'error' ? 1 : 0));
  expect(refused).toMatchObject({ status: 'error', events: ['exception'] });
  expect(refused.attributes).toMatchObject({ 'gen_ai.system': 'anthropic', 'error.type': '429' });
  expect(answered.attributes).toMatchObject({
    'gen_ai.system': 'anthropic',
    'gen_ai.provider.name': 'anthropic',
    'gen_ai.request.model': 'claude-haiku-4-5',
    'gen_ai.usage.input_tokens': 321,
    'gen_ai.usage.output_tokens': 30,
    'gen_ai.response.finish_reasons': ['stop'],
  });
  for (const span of inference) expect(parentOf(trace, span)?.name).toBe('RunActivity:callModel');
});

describe('with OTEL_EXPORTER_OTLP_ENDPOINT unset', () => {
  it('exports nothing for a run', async () => {
    const workspace = await makeWorkspace({ 'alpha.txt': 'alpha!' });
    scriptReadFileRun();
    const run = await runCli(['run', 'What does alpha.txt say?', '--workspace', workspace, '--json'], {
      ...server.providerEnv,
      OTEL_SERVICE_NAME: 'agent-untraced',
      AGENT_TASK_QUEUE: uniqueTaskQueue('untraced'),
    });
    expect(run.code).toBe(0);
    const workflowId = String(lastJsonLine(run.stdout).workflowId);
    // The CLI and its worker have exited: whatever they were going to send has been sent. Give the collector's file a flush.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const spans = await readExportedSpans(collector.spansFile);
    expect(spans.filter((span) => span.attributes.temporalWorkflowId === workflowId)).toEqual([]);
    expect(spans.filter((span) => span.service === 'agent-untraced')).toEqual([]);
  });

  it('installs no interceptor or sink and loads no OpenTelemetry package; with it set, it installs Temporal’s', async () => {
    const off = await probe({});
    expect(off).toMatchObject({ workflowInterceptorModules: [], activityInterceptors: 0, clientInterceptors: 0, sinks: [] });
    // The Anthropic SDK loads the OpenTelemetry API itself (a no-op without an SDK); nothing else is loaded.
    expect((off.loadedPackages as string[]).filter((name) => name !== '@opentelemetry/api')).toEqual([]);

    const on = await probe(tracingEnv('agent-probe'));
    expect(on.workflowInterceptorModules).toEqual([expect.stringContaining('interceptors-opentelemetry')]);
    expect(on.activityInterceptors).toBe(1);
    expect(on.clientInterceptors).toBe(1);
    expect(on.sinks).toEqual(['exporter']);
    expect(on.loadedPackages).toEqual(
      expect.arrayContaining([
        '@opentelemetry/sdk-trace-base',
        '@opentelemetry/exporter-trace-otlp-proto',
        '@temporalio/interceptors-opentelemetry',
      ]),
    );
  });
});

it('traces nothing with tracing: false, whatever the environment says (an app that sets up OpenTelemetry itself)', () => {
  const plugin = new AgentPlugin({ env: tracingEnv('agent-opted-out'), tracing: false, workspaceRoot: os.tmpdir() });
  expect(plugin.tracing).toBeUndefined();
  const worker = plugin.configureWorker({ taskQueue: 'opted-out' });
  expect(worker.interceptors?.activity ?? []).toHaveLength(0);
  expect(worker.interceptors?.workflowModules ?? []).toHaveLength(0);
  expect(worker.sinks ?? {}).toEqual({});
  expect(plugin.configureClient({}).interceptors?.workflow ?? []).toHaveLength(0);
});

describe('bad tracing settings', () => {
  it('stop the CLI before it starts a run, naming the variable', async () => {
    // A workspace the run could use, so that the tracing variable is the only thing wrong with it.
    const workspace = await makeWorkspace({});
    const run = await runCli(['run', 'hello', '--workspace', workspace, '--json'], {
      ...server.providerEnv,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318" must be an http:// or https:// URL');
    expect(server.requests).toHaveLength(0);
  });

  it('stop npm run worker: gRPC is not spoken, and a prebuilt bundle without the interceptors would lose the workflow spans', async () => {
    const grpc = await runWorkerMain({ ...tracingEnv('agent-worker'), OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(grpc.code).toBe(1);
    expect(grpc.stderr).toContain(
      'worker failed: OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported: durable-agent sends OTLP over HTTP (http/protobuf)',
    );

    const untracedBundle = await runWorkerMain({
      ...tracingEnv('agent-worker'),
      AGENT_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE,
    });
    expect(untracedBundle.code).toBe(1);
    expect(untracedBundle.stderr).toContain(
      `worker failed: the workflow bundle ${process.env.TEST_WORKFLOW_BUNDLE} (AGENT_WORKFLOW_BUNDLE) was built without the OpenTelemetry workflow interceptors`,
    );
  });

  it('a collector that is not there loses the spans, not the run, and says so', async () => {
    const workspace = await makeWorkspace({ 'alpha.txt': 'alpha!' });
    scriptReadFileRun();
    const run = await runCli(['run', 'What does alpha.txt say?', '--workspace', workspace, '--json'], {
      ...server.providerEnv,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', // discard: nothing listens there
      AGENT_TASK_QUEUE: uniqueTaskQueue('tracing-nowhere'),
      AGENT_WORKFLOW_BUNDLE: tracedBundle,
    });
    expect(run.code).toBe(0);
    expect(lastJsonLine(run.stdout).answer).toBe('The file says alpha!');
    expect(run.stderr).toContain('tracing: spans could not be exported to http://127.0.0.1:9/v1/traces');
  });
});

async function probe(env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, typescriptArgs('test/fixtures/tracing-probe.ts'), {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result = await collect(child);
  if (result.code !== 0) throw new Error(`the probe failed: ${result.stderr}`);
  return lastJsonLine(result.stdout);
}

/** `npm run worker` against the test server until it exits by itself (the bad settings stop it). */
async function runWorkerMain(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, typescriptArgs('worker/main.ts'), {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      AGENT_WORKSPACE_ROOT: os.tmpdir(),
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
      AGENT_TASK_QUEUE: uniqueTaskQueue('tracing-bad'),
      AGENT_TRANSCRIPT_DIR: process.env.AGENT_TRANSCRIPT_DIR,
      AGENT_PAYLOAD_DIR: process.env.AGENT_PAYLOAD_DIR,
      ...server.providerEnv,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = collect(child);
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}
