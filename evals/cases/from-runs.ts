import type { Client } from '@temporalio/client';
import type { DataConverter, LoadedDataConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { fetchHistoryChain, readHistoriesFile } from '../../client/history-chain';
import { agentDataConverter } from '../../storage/data-converter';
import { agentWorkflowType } from '../../workflows/definitions';
import type { EvalCase } from '../../core/eval-types';
import { decodeRun } from './decode-history';
import { casesFromConversation, type RecordedCaseOptions } from './recorded-cases';
import { recordedConversation } from './recorded-conversation';

type History = temporal.api.history.v1.IHistory;

export type { RecordedCaseOptions } from './recorded-cases';

/** One recorded conversation's histories: every run of its chain, oldest first. */
export interface RecordedChain {
  workflowId: string;
  histories: History[];
}

/** The cases of recorded chains, read with the data converter of the workers that recorded them. */
export async function casesFromHistories(
  chains: RecordedChain[],
  dataConverter: DataConverter | LoadedDataConverter,
  options: RecordedCaseOptions = {},
): Promise<EvalCase[]> {
  const cases: EvalCase[] = [];
  for (const chain of chains) {
    const runs = [];
    for (const history of chain.histories) runs.push(await decodeRun(chain.workflowId, history, dataConverter));
    cases.push(...casesFromConversation(recordedConversation(runs), options));
  }
  return cases;
}

export interface CasesFromRunsOptions extends RecordedCaseOptions {
  /** The runs, by workflow id: each with every run of its chain, up to its latest. */
  workflowIds?: string[];
  /**
   * The runs a visibility query lists (`AgentForkedFrom IS NULL AND StartTime > '2026-11-01T00:00:00Z'`), among the
   * agent workflow's runs only; each workflow id once, with its whole chain.
   */
  query?: string;
  /** At most this many conversations from the query (default 100). */
  limit?: number;
}

/**
 * Cases from runs on a server: by ids, by a visibility query, or both. The histories are read (reading writes
 * nothing) with the client's data converter, which must be the workers' (agentDataConverter() by default).
 */
export async function casesFromRuns(client: Client, options: CasesFromRunsOptions): Promise<EvalCase[]> {
  const ids = [...(options.workflowIds ?? [])];
  if (options.query !== undefined) ids.push(...(await listedWorkflowIds(client, options.query, options.limit ?? 100)));
  const unique = [...new Set(ids)];
  if (unique.length === 0) throw new Error('no runs to make cases from: give workflow ids or a query that lists some');
  const chains: RecordedChain[] = [];
  for (const workflowId of unique) chains.push({ workflowId, histories: await fetchHistoryChain(client, workflowId) });
  return casesFromHistories(chains, client.options.loadedDataConverter, options);
}

/**
 * Cases from history files, as `agent history --out` writes them: a chain file holds every run of a conversation,
 * a file of one History one run (client/history-chain.ts). Read with `dataConverter` (default: agentDataConverter()
 * of this process's environment: the workers' keys and payload store).
 */
export async function casesFromHistoryFiles(
  files: string[],
  options: RecordedCaseOptions & { dataConverter?: DataConverter } = {},
): Promise<EvalCase[]> {
  const chains: RecordedChain[] = [];
  for (const file of files) chains.push(await readChainFile(file));
  return casesFromHistories(chains, options.dataConverter ?? agentDataConverter(), options);
}

async function readChainFile(file: string): Promise<RecordedChain> {
  const contents = await readHistoriesFile(file);
  const started = contents.histories.at(-1)?.events?.[0]?.workflowExecutionStartedEventAttributes;
  const workflowId = contents.workflowId ?? (started as { workflowId?: string } | undefined)?.workflowId;
  if (!started) throw new Error(`${file} does not start with a WorkflowExecutionStarted event: not a whole history`);
  return { workflowId: workflowId || fileName(file), histories: contents.histories };
}

const fileName = (file: string) => file.split(/[\\/]/).at(-1) ?? file;

/** The workflow ids a query lists among the agent workflow's runs, each once, in the order listed, at most `limit`. */
async function listedWorkflowIds(client: Client, query: string, limit: number): Promise<string[]> {
  const ids = new Set<string>();
  let nextPageToken: Uint8Array | undefined;
  do {
    // By id only, not client.workflow.list(): that decodes each memo, and one sealed under another key stops the list.
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query: `WorkflowType = '${agentWorkflowType}' AND (${query})`,
      pageSize: Math.min(limit * 2, 1000),
      nextPageToken,
    });
    for (const { execution } of page.executions ?? []) {
      if (execution?.workflowId) ids.add(execution.workflowId);
      if (ids.size >= limit) return [...ids];
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return [...ids];
}
