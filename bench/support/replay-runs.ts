import { performance } from 'node:perf_hooks';
import type { DataConverter } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { RunHistory } from './history';

export interface ReplayOutcome {
  ms: number;
  /** Why a run did not replay, as the SDK reports it; none when every run replayed. */
  errors: string[];
}

/**
 * Replays every run of a workflow id with `Worker.runReplayHistories` and the
 * given bundle, as a worker does when it picks up a run it has not cached.
 * A run that fails to replay is reported, not thrown.
 */
export async function replayRuns(
  bundleCode: string,
  workflowId: string,
  runs: RunHistory[],
  dataConverter?: DataConverter,
): Promise<ReplayOutcome> {
  const errors: string[] = [];
  const started = performance.now();
  try {
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: { code: bundleCode }, dataConverter },
      runs.map((run) => ({ workflowId, history: run.history })),
    )) {
      if (result.error) errors.push(`${result.error.name}: ${firstLine(result.error.message)}`);
    }
  } catch (error) {
    errors.push(`${(error as Error).name}: ${firstLine((error as Error).message)}`);
  }
  return { ms: performance.now() - started, errors };
}

function firstLine(text: string): string {
  const line = text.split('\n')[0];
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
