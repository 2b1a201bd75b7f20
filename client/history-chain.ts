import { readFile } from 'node:fs/promises';
import type { Client } from '@temporalio/client';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

/**
 * A run that continued as new is one conversation in several runs: a chain. `agent history --out` once saved only
 * its latest run, so a divergence in an earlier one (at the continue-as-new itself, say) passed `agent replay
 * --file` while the server gate, which lists every run, caught it (issue 30). A chain file holds every run of the
 * chain, oldest first, each as the JSON of Temporal's History. A file holding one History (a run that never continued
 * as new, the Web UI's download, `temporal workflow show --output json`, older `agent history`) is read as one run.
 */
export const historyChainFormat = 'durable-agent.history-chain';
export const historyChainVersion = 1;

export interface HistoryChainFile {
  format: typeof historyChainFormat;
  version: typeof historyChainVersion;
  workflowId: string;
  /** Every run of the chain, oldest first: each the JSON `historyToJSON` gives. */
  runs: unknown[];
}

// A chain longer than this is a loop in the server's answers (a run naming itself as its predecessor), not a session.
const maxChainRuns = 10_000;

/**
 * Every run of the chain that `runId` (default: the latest run of `workflowId`) belongs to, up to that run, oldest
 * first: each run's started event names the run it continued (`continuedExecutionRunId`), back to the first.
 */
export async function fetchHistoryChain(client: Client, workflowId: string, runId?: string): Promise<History[]> {
  const chain: History[] = [];
  const seen = new Set<string>();
  let next: string | undefined = runId;
  for (;;) {
    const history = await client.workflow.getHandle(workflowId, next).fetchHistory();
    chain.unshift(history);
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const previous = started?.continuedExecutionRunId || undefined;
    const own = started?.originalExecutionRunId ?? next ?? '';
    seen.add(own);
    if (!previous) return chain;
    if (seen.has(previous) || chain.length >= maxChainRuns)
      throw new Error(`the runs of ${workflowId} do not form a chain: run ${own} continues ${previous} again`);
    next = previous;
  }
}

/**
 * The chain as a file's text: every run's history, oldest first. A chain of one run is written as that run's History
 * alone, the JSON every Temporal tool reads (`temporal workflow show --output json`, the Web UI's upload).
 */
export function historyChainToJSON(workflowId: string, chain: History[]): string {
  if (chain.length === 1) return historyToJSON(chain[0]);
  const file: HistoryChainFile = {
    format: historyChainFormat,
    version: historyChainVersion,
    workflowId,
    runs: chain.map((history) => JSON.parse(historyToJSON(history)) as unknown),
  };
  return JSON.stringify(file, null, 2);
}

/** Reads a history file (`agent history --out`'s chain or one history's JSON), with errors that name the file. */
export async function readHistoriesFile(file: string): Promise<ReturnType<typeof historiesInFile>> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new Error(`cannot read the history file ${file}: ${error.message}`, { cause: error });
  });
  try {
    return historiesInFile(JSON.parse(text));
  } catch (error) {
    throw new Error(`${file} is not a workflow history in JSON (agent history --out writes one): ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The histories a file's JSON holds: a chain's runs, oldest first, or the one history of a single-run file. */
export function historiesInFile(json: unknown): { workflowId?: string; histories: History[] } {
  if (json && typeof json === 'object' && (json as { format?: unknown }).format === historyChainFormat) {
    const chain = json as Partial<HistoryChainFile>;
    if (chain.version !== historyChainVersion)
      throw new Error(
        `a history chain of version ${String(chain.version)}, which this build does not read (it reads ${historyChainVersion})`,
      );
    if (!Array.isArray(chain.runs) || chain.runs.length === 0) throw new Error('a history chain with no runs');
    return {
      workflowId: typeof chain.workflowId === 'string' ? chain.workflowId : undefined,
      histories: chain.runs.map((run) => historyFromJSON(run)),
    };
  }
  return { histories: [historyFromJSON(json)] };
}
