import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { z } from 'zod';
import type { CollectorProcess } from '../support/otel-collector/collector-process';
import { sendMessage } from '../../client/send-message';
import { startAgent } from '../../client/start-agent';
import { defineTool } from '../../tools/define-tool';
import { AgentPlugin, workflowsPath } from '../../worker/agent-plugin';
import { endSessionSignal } from '../../workflows/definitions';
import { named, only, readExportedSpans, runTrace, startTestCollector, type ExportedSpan } from '../support/exported-spans';
import { FakeModelServer, openaiError, openaiReply } from '../support/fake-model-server';
import { withTracedWorker } from '../support/traced-worker';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';
import { quietBundlerLogger } from '../support/quiet-bundler-logger';

// Spans never hold what a tool returned or the text of an error (a tool's, a provider's, a failed run's):
// a real worker traces to a real Collector, and each canary below must reach the model or the caller
// (so it went through every layer that traces) yet appear nowhere in the Collector's spans file.

const toolErrorCanary = 'CANARY-tool-error-7f3a: the file said rm -rf';
const toolOutputCanary = 'CANARY-tool-output-91c2: password=hunter2';
const providerCanary = 'CANARY-provider-echo-55d0: messages[1].content was "my secret plan"';

/** A tool whose error message carries the canary, as a tool's error may quote a file or the model's words. */
const throwingTool = defineTool({
  name: 'throw_canary',
  description: 'Test tool: always fails, quoting its input.',
  input: z.object({}),
  activity: { maximumAttempts: 2, initialRetryInterval: '100ms' },
  async handler() {
    throw new Error(`could not parse the file: ${toolErrorCanary}`);
  },
});

const echoTool = defineTool({
  name: 'echo_canary',
  description: 'Test tool: returns a secret.',
  input: z.object({}),
  async handler() {
    return toolOutputCanary;
  },
});

let collector: CollectorProcess;
let server: FakeModelServer;
let plugin: AgentPlugin;
let bundlePath: string;

beforeAll(async () => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'agent-span-content-'));
  collector = await startTestCollector(path.join(directory, 'spans.jsonl'));
  server = await FakeModelServer.start();
  plugin = new AgentPlugin({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_SERVICE_NAME: 'span-content', ...server.providerEnv },
    workspaceRoot: os.tmpdir(),
    tools: [throwingTool, echoTool],
  });
  const bundle = await bundleWorkflowCode({ workflowsPath, plugins: [plugin], logger: quietBundlerLogger });
  bundlePath = path.join(directory, 'traced-workflow-bundle.js');
  await writeFile(bundlePath, bundle.code);
});
beforeEach(() => server.reset());
afterAll(async () => {
  await plugin?.tracing?.flush();
  await server?.close();
  await collector?.stop();
});

async function exportedTrace(workflowId: string, isComplete: (trace: ExportedSpan[]) => boolean): Promise<ExportedSpan[]> {
  return waitFor(`the trace of ${workflowId}`, async () => {
    const trace = runTrace(await readExportedSpans(collector.spansFile), workflowId);
    return isComplete(trace) && trace;
  });
}

it('exports neither a tool’s output nor its error text: failed tool spans carry the status and the error type only', async () => {
  const workspace = await makeWorkspace();
  server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'call-throw', name: 'throw_canary', arguments: {} },
        { id: 'call-echo', name: 'echo_canary', arguments: {} },
      ],
    }),
    openaiReply({ content: 'Both tools ran.' }),
  );
  const workflowId = await withTracedWorker({ plugin, bundlePath }, 'span-content-tools', async (client, taskQueue) => {
    const handle = await startAgent(
      client,
      { prompt: 'Run both tools', model: 'openai:gpt-4o-mini', tools: ['throw_canary', 'echo_canary'], workspace },
      { taskQueue },
    );
    expect(await handle.result()).toMatchObject({ answer: 'Both tools ran.', status: 'completed' });
    return handle.workflowId;
  });
  // Both canaries went all the way through: the model read them in its second request.
  const secondRequest = JSON.stringify(server.requests[1].body);
  expect(secondRequest).toContain(toolErrorCanary);
  expect(secondRequest).toContain(toolOutputCanary);

  const trace = await exportedTrace(
    workflowId,
    (spans) =>
      spans.some((span) => span.name === 'RunWorkflow:agentWorkflow') && named(spans, 'execute_tool throw_canary').length === 2,
  );
  const spansFile = await readFile(collector.spansFile, 'utf8');
  expect(spansFile).not.toContain('CANARY');

  // Both attempts of the failing tool say that they failed, and how, but not what the error said.
  for (const toolSpan of named(trace, 'execute_tool throw_canary')) {
    expect(toolSpan).toMatchObject({ status: 'error', events: ['exception'] });
    expect(toolSpan.attributes['error.type']).toBe('Error');
  }
  for (const activitySpan of named(trace, 'RunActivity:throw_canary'))
    expect(activitySpan).toMatchObject({ status: 'error', events: ['exception'] });
  expect(only(trace, 'execute_tool echo_canary').status).not.toBe('error');
});

it('exports no provider error text: a 400 that echoes the request fails the run, and its spans carry the status code only', async () => {
  const workspace = await makeWorkspace();
  server.enqueue(openaiError(400, providerCanary));
  const workflowId = await withTracedWorker({ plugin, bundlePath }, 'span-content-provider', async (client, taskQueue) => {
    const handle = await startAgent(client, { prompt: 'Say hello', model: 'openai:gpt-4o-mini', workspace }, { taskQueue });
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    // The caller is told the provider's words: they are in the run's (encryptable) history, not in its spans.
    expect(String((failure as WorkflowFailedError).cause?.message)).toContain(providerCanary);
    return handle.workflowId;
  });

  const trace = await exportedTrace(workflowId, (spans) => spans.some((span) => span.name === 'RunWorkflow:agentWorkflow'));
  expect(await readFile(collector.spansFile, 'utf8')).not.toContain('CANARY');
  const modelCall = only(trace, 'chat gpt-4o-mini');
  expect(modelCall).toMatchObject({ status: 'error', events: ['exception'] });
  expect(modelCall.attributes['error.type']).toBe('400');
  expect(only(trace, 'RunWorkflow:agentWorkflow').status).toBe('error');
});

it('exports no provider error text from a session: the failed turn’s update spans carry none, and the session goes on', async () => {
  const workspace = await makeWorkspace();
  server.enqueue(openaiError(400, providerCanary), openaiReply({ content: 'Answered after all.' }));
  const workflowId = await withTracedWorker({ plugin, bundlePath }, 'span-content-session', async (client, taskQueue) => {
    const started = await startAgent(
      client,
      { model: 'openai:gpt-4o-mini', workspace, session: { idleTimeoutSeconds: 60 } },
      { taskQueue },
    );
    const handle = client.workflow.getHandle(started.workflowId);
    await expect(sendMessage(handle, 'My secret plan')).rejects.toThrow(providerCanary);
    expect((await sendMessage(handle, 'Try again')).answer).toBe('Answered after all.');
    await handle.signal(endSessionSignal);
    await handle.result();
    return started.workflowId;
  });

  const all = await waitFor('the session’s spans', async () => {
    const spans = await readExportedSpans(collector.spansFile);
    const ended = runTrace(spans, workflowId).some((span) => span.name === 'RunWorkflow:agentWorkflow');
    const updateTraces = new Set(
      spans
        .filter((span) => span.name === 'StartWorkflowUpdate:sendMessage' && span.attributes.temporalWorkflowId === workflowId)
        .map((span) => span.traceId),
    );
    const handled = spans.filter((span) => span.name === 'HandleUpdate:sendMessage' && updateTraces.has(span.traceId));
    return ended && handled.length >= 2 && { spans, handled };
  });
  expect(await readFile(collector.spansFile, 'utf8')).not.toContain('CANARY');
  // The failed turn's update says that it failed, not what the provider said.
  expect(all.handled.map((span) => span.status).sort()).toEqual(['error', 'ok']);
  const failedCall = runTrace(all.spans, workflowId).find((span) => span.name === 'chat gpt-4o-mini' && span.status === 'error');
  expect(failedCall?.attributes['error.type']).toBe('400');
});
