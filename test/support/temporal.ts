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
}

/** Test workspaces are temporary directories; test workers and CLIs serve workspaces under this root. */
export const testWorkspaceRoot = os.tmpdir();

/** The input as a client resolves it (defaults filled in), for tests that start the workflow themselves. */
export function resolved(input: AgentInput): ResolvedAgentInput {
  const check = resolveAgentInput(input);
  if (!check.ok) throw new Error(`test input is invalid: ${check.problems}`);
  return check.input;
}

/** A worker on the shared bundle that replays every workflow task (maxCachedWorkflows: 0), so tests catch non-determinism. */
export function createTestWorker(environment: TestWorkflowEnvironment, options: TestWorkerOptions): Promise<Worker> {
  return createAgentWorker({
    connection: environment.nativeConnection,
    namespace: environment.namespace ?? 'default',
    taskQueue: options.taskQueue,
    tools: options.tools,
    agents: options.model && options.agents ? answeredBy(options.model.provider.name, options.agents) : options.agents,
    ...(options.model && { providers: [options.model.provider] }),
    mcpServers: options.mcpServers,
    env: options.env ?? {},
    workspaceRoot: options.workspaceRoot ?? testWorkspaceRoot,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    transcripts: options.transcripts,
    activityOverrides: options.activityOverrides,
    overrides: { maxCachedWorkflows: 0 },
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
