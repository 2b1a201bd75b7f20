import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { WorkflowHandle } from '@temporalio/client';
import { resolveAgentInput, type AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { agentWorkflowType } from '../../workflows/definitions';
import type { BenchEnvironment } from './environment';
import { formatMs } from './format';
import { log } from './log';
import { closingOutcome, fetchRunChain, type RunHistory } from './history';
import type { ModelScript } from './scripted-model';

export interface SessionOptions {
  /** Goes into the workflow id. */
  name: string;
  script: ModelScript;
  tools: string[];
  maxIterations: number;
  maxConcurrentTools?: number;
  /** A session still open after this long is terminated and reported as such. */
  deadlineMs: number;
}

/** A finished benchmark session: every run of its workflow id and how it ended. */
export interface Session {
  workflowId: string;
  runs: RunHistory[];
  completed: boolean;
  /** `completed`, or why not (terminated by the server for its history size, failed, deadline). */
  outcome: string;
  result?: AgentResult;
  /** Client side: from just before the start request to the result (or the end). */
  wallMs: number;
}

export async function runSession(environment: BenchEnvironment, options: SessionOptions): Promise<Session> {
  const workflowId = `bench-${options.name}-${randomUUID().slice(0, 8)}`;
  environment.model.add(workflowId, options.script);
  const input: AgentInput = {
    prompt: `benchmark: ${options.name}`,
    model: 'openai:bench-scripted',
    tools: options.tools,
    maxIterations: options.maxIterations,
    maxConcurrentTools: options.maxConcurrentTools,
    workspace: environment.workspace,
  };
  const started = performance.now();
  const handle = await environment.client.workflow.start(agentWorkflowType, {
    taskQueue: environment.taskQueue,
    workflowId,
    args: [resolveInput(input)],
  });
  const ended = await waitForEnd(handle, options.deadlineMs);
  const wallMs = performance.now() - started;
  if (ended === 'deadline') {
    await handle.terminate(`benchmark deadline of ${Math.round(options.deadlineMs / 1000)} s passed`).catch(() => undefined);
  }
  const runs = await fetchRunChain(environment.client, workflowId, handle.firstExecutionRunId);
  const outcome = closingOutcome(runs);
  log(`  ${workflowId}: ${outcome.description} in ${formatMs(wallMs)}, ${runs.length} run(s)`);
  return {
    workflowId,
    runs,
    completed: outcome.completed,
    outcome: outcome.description,
    result: ended === 'deadline' || ended === 'closed' ? undefined : ended,
    wallMs,
  };
}

/**
 * The run's result, following continue-as-new to the last run. A run that
 * ended otherwise ('closed') is described by its history. When waiting fails
 * while the workflow still runs (a dropped long poll), it waits again.
 */
async function waitForEnd(handle: WorkflowHandle, deadlineMs: number): Promise<AgentResult | 'closed' | 'deadline'> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return 'deadline';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), remaining)));
    const outcome = await Promise.race([
      handle.result().then(
        (result: AgentResult) => ({ result }),
        (error: unknown) => ({ error }),
      ),
      timeout,
    ]);
    clearTimeout(timer);
    if (outcome === 'deadline') return 'deadline';
    if ('result' in outcome) return outcome.result;
    const description = await handle.describe().catch(() => undefined);
    if (description?.status.name !== 'RUNNING') return 'closed';
    log(`  waiting for ${handle.workflowId} failed while it still runs (${(outcome.error as Error).message}); waiting again`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

function resolveInput(input: AgentInput) {
  const check = resolveAgentInput(input);
  if (!check.ok) throw new Error(`benchmark input is invalid: ${check.problems}`);
  return check.input;
}
