import { performance } from 'node:perf_hooks';
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { formatBytes, formatMs } from './format';
import { closingOutcome, fetchRunChain, type RunHistory } from './history';
import { log } from './log';

/** A workflow id's runs once it ended (or its deadline passed), and how it ended. */
export interface FinishedRun<Result> {
  workflowId: string;
  runs: RunHistory[];
  completed: boolean;
  /** `completed`, or why not (terminated by the server for its history size, failed, deadline). */
  outcome: string;
  result?: Result;
  /** Client side: from `startedAt` to the result (or the end). */
  wallMs: number;
}

/**
 * Waits for a started workflow to end, terminates it when `deadlineMs` passes
 * first (a benchmark's run time stays bounded), then reads every run of its
 * workflow id. A run that the server terminated is a result, not an error.
 */
export async function finishRun<Result>(
  client: Client,
  handle: WorkflowHandleWithFirstExecutionRunId,
  options: { startedAt: number; deadlineMs: number; progressEveryMs?: number },
): Promise<FinishedRun<Result>> {
  const progress = options.progressEveryMs ? reportProgress(handle, options.startedAt, options.progressEveryMs) : undefined;
  const ended = await waitForEnd<Result>(handle, options.deadlineMs).finally(() => clearInterval(progress));
  const wallMs = performance.now() - options.startedAt;
  if (ended === 'deadline') {
    await handle.terminate(`benchmark deadline of ${Math.round(options.deadlineMs / 1000)} s passed`).catch(() => undefined);
  }
  const runs = await fetchRunChain(client, handle.workflowId, handle.firstExecutionRunId);
  const outcome = closingOutcome(runs);
  log(`  ${handle.workflowId}: ${outcome.description} in ${formatMs(wallMs)}, ${runs.length} run(s)`);
  return {
    workflowId: handle.workflowId,
    runs,
    completed: outcome.completed,
    outcome: outcome.description,
    result: typeof ended === 'object' ? ended.result : undefined,
    wallMs,
  };
}

/** Every `everyMs`, how far the run got: its history's events and bytes, as the server counts them. */
function reportProgress(handle: WorkflowHandleWithFirstExecutionRunId, startedAt: number, everyMs: number): NodeJS.Timeout {
  return setInterval(() => {
    handle
      .describe()
      .then((description) =>
        log(
          `  ${handle.workflowId}: ${formatMs(performance.now() - startedAt)}, ${description.historyLength} events, ` +
            `${formatBytes(description.historySize ?? 0)} of history`,
        ),
      )
      .catch(() => undefined);
  }, everyMs);
}

/**
 * The run's result, following continue-as-new to the last run. A run that
 * ended otherwise ('closed') is described by its history. When waiting fails
 * while the workflow still runs (a dropped long poll), it waits again.
 */
async function waitForEnd<Result>(
  handle: WorkflowHandleWithFirstExecutionRunId,
  deadlineMs: number,
): Promise<{ result: Result } | 'closed' | 'deadline'> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return 'deadline';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), remaining)));
    const outcome = await Promise.race([
      handle.result().then(
        (result: Result) => ({ result }),
        (error: unknown) => ({ error }),
      ),
      timeout,
    ]);
    clearTimeout(timer);
    if (outcome === 'deadline') return 'deadline';
    if ('result' in outcome) return outcome;
    const description = await handle.describe().catch(() => undefined);
    if (description?.status.name !== 'RUNNING') return 'closed';
    log(`  waiting for ${handle.workflowId} failed while it still runs (${(outcome.error as Error).message}); waiting again`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
