import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { agentDataConverter } from '../../storage/data-converter';
import { createAgentWorker } from '../../worker/create-worker';
import type { Tool } from '../../tools';
import type { TranscriptStore } from '../../storage/transcript/transcript-store';
import type { Agent } from '../../agents/define-agent';
import type { Definitions } from '../../agents/registry';
import type { ResolvedAgentInput } from '../../core/input';
import { resolveAgentInput, type AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { agentWorkflowType } from '../../workflows/definitions';
import type { ScriptedModel } from 'durable-agent/testing';
import { answeredBy } from '../../testing/scripted-agents';
import { replayAtEnd } from './replay-at-end';

/** Connects to the dev server that global-setup started. */
export function connectToTestServer(namespace?: string): Promise<TestWorkflowEnvironment> {
  const address = process.env.TEST_TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEST_TEMPORAL_ADDRESS is not set: run the tests through jest (npm test)');
  return TestWorkflowEnvironment.createFromExistingServer({
    address,
    ...(namespace && { namespace }),
    client: { dataConverter: agentDataConverter() },
  });
}

export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

export interface TestWorkerOptions {
  taskQueue: string;
  tools?: Tool[];
  agents?: Agent[];
  env?: NodeJS.ProcessEnv;
  /**
   * Registers the scripted model's provider, and answers `agents` from it as createAgentTestEnv does: their model
   * becomes `scripted:<agent>@<their own>`. A run that names its own model names `scripted:…` to reach it.
   */
  model?: ScriptedModel;
  /** Default: the system's temporary directory, where test workspaces live. */
  workspaceRoot?: string;
  /** Default: a store in the worker's memory. */
  transcripts?: TranscriptStore;
  /** Activities that replace the worker's own by name. */
  activityOverrides?: Record<string, (...args: never[]) => Promise<unknown>>;
  /** MCP servers, as the `mcpServers` object of an AGENT_MCP_CONFIG file. */
  mcpServers?: Definitions['mcpServers'];
  /** Providers beside the built-in ones (an AI SDK model's, say). */
  providers?: Definitions['providers'];
}

/** Test workspaces are temporary directories; test workers and CLIs serve workspaces under this root. */
export const testWorkspaceRoot = os.tmpdir();

/** The input as a client resolves it (defaults filled in), for tests that start the workflow themselves. */
export function resolved(input: AgentInput): ResolvedAgentInput {
  const check = resolveAgentInput(input);
  if (!check.ok) throw new Error(`test input is invalid: ${check.problems}`);
  return check.input;
}

/**
 * What a test's in-process worker does differently from a production one: it runs workflows in the test's own thread
 * (debugMode), not in a worker thread of their own. A thread costs each worker about 0.7 s of CPU to start (it loads
 * the SDK and the bundle again), and the suite creates hundreds of workers: a quarter of the CPU of a workflow test.
 * The deadlock detector stays on (debugMode would lift it), and the workers tests start as processes (spawned workers,
 * the CLI's embedded worker) run workflows in threads, as in production. Workflows stay cached, as in production;
 * non-determinism is caught when the test file ends, by a replay of every workflow its workers ran (replay-at-end.ts).
 */
export const inProcessTestWorker = { debugMode: true, isolateExecutionTimeout: '5s' } as const;

/** A worker on the shared bundle, run as inProcessTestWorker says, whose workflows are replayed when the file ends. */
export function createTestWorker(environment: TestWorkflowEnvironment, options: TestWorkerOptions): Promise<Worker> {
  replayAtEnd(options.taskQueue);
  return createAgentWorker({
    connection: environment.nativeConnection,
    namespace: environment.namespace ?? 'default',
    taskQueue: options.taskQueue,
    tools: options.tools,
    agents: options.model && options.agents ? answeredBy(options.model.provider.name, options.agents) : options.agents,
    providers: [...(options.providers ?? []), ...(options.model ? [options.model.provider] : [])],
    mcpServers: options.mcpServers,
    env: options.env ?? {},
    workspaceRoot: options.workspaceRoot ?? testWorkspaceRoot,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    transcripts: options.transcripts,
    activityOverrides: options.activityOverrides,
    overrides: inProcessTestWorker,
  });
}

export async function runAgent(
  environment: TestWorkflowEnvironment,
  taskQueue: string,
  input: AgentInput,
): Promise<{ result: AgentResult; workflowId: string }> {
  const workflowId = `test-${randomUUID()}`;
  const result = await environment.client.workflow.execute<(input: ResolvedAgentInput) => Promise<AgentResult>>(
    agentWorkflowType,
    {
      taskQueue,
      workflowId,
      args: [resolved(input)],
    },
  );
  return { result, workflowId };
}
