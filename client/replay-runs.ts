import { readFile } from 'node:fs/promises';
import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Worker, type ReplayWorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import { AgentPlugin, workflowsPath as agentWorkflowsPath } from '../worker/agent-plugin';
import { cachedWorkflowBundle } from '../worker/bundle-cache';
import { agentWorkflowType } from '../workflows/definitions';
import { describeDivergence, type Divergence } from './replay-divergence';
import { firstDivergingTask } from './replay-locate';

export type { Divergence } from './replay-divergence';

type History = temporal.api.history.v1.IHistory;

/** One replayed run: ok, or the error and where the history and this code parted. */
export interface ReplayedRun {
  workflowId: string;
  runId: string;
  ok: boolean;
  /** The SDK's error message (a DeterminismViolationError, or another replay failure). */
  error?: string;
  divergence?: Divergence;
}

/** The line a person reads for a failed run: where it diverged (event id and type, when the error names them) and what differed. */
export function replayFailureLine(run: ReplayedRun): string {
  const divergence = run.divergence;
  if (!divergence) return run.error ?? 'failed';
  const event =
    divergence.eventId !== undefined
      ? `event ${divergence.eventId}${divergence.eventType ? ` (${divergence.eventType})` : ''}: `
      : '';
  return `${event}${divergence.difference}`;
}

export interface ReplayOptions {
  /**
   * The worker's plugins, as its Worker.create gets them: they give the replay the data converter (codec, external
   * storage) and the workflow interceptors. Default: one AgentPlugin with the built-in definitions and this process's
   * environment, the plugin every worker of this project has.
   */
  plugins?: WorkerPlugin[];
  /** The data converter, when the worker's is not its plugins' (default: the plugins'; AgentPlugin's is agentDataConverter()). */
  dataConverter?: DataConverter;
  /** The workflows the worker runs (default: the agent workflow). Ignored with a workflowBundle. */
  workflowsPath?: string;
  /** A prebuilt bundle, as the worker's. Default: AGENT_WORKFLOW_BUNDLE when set, else the workflows bundled now. */
  workflowBundle?: ReplayWorkerOptions['workflowBundle'];
  /** Keep the bundle in this directory between runs, as the CLI's worker does (worker/bundle-cache.ts). */
  workflowBundleCache?: string;
}

export interface HistoryToReplay {
  workflowId: string;
  history: History;
}

/**
 * Replays each history against this code with the worker's bundle, plugins and data converter, one after the other
 * in one replay worker, and says for each whether it replayed. A run whose commands differ from its history is not
 * thrown: it comes back with ok false, the error, and the diverging event when the error names it.
 */
export async function replayHistories(
  histories: Iterable<HistoryToReplay> | AsyncIterable<HistoryToReplay>,
  options: ReplayOptions = {},
): Promise<ReplayedRun[]> {
  const plugins = options.plugins ?? [new AgentPlugin()];
  const workflowBundle = options.workflowBundle ?? (await workerBundle(options, plugins));
  // The events of the history being replayed, to find the event an error names only by an attribute.
  const eventsOf = new Map<string, temporal.api.history.v1.IHistoryEvent[]>();
  async function* remembered(): AsyncIterable<HistoryToReplay> {
    for await (const item of histories) {
      eventsOf.clear();
      eventsOf.set(item.workflowId, item.history.events ?? []);
      yield item;
    }
  }
  const runs: ReplayedRun[] = [];
  const replayOptions: ReplayWorkerOptions = {
    workflowBundle,
    plugins,
    ...(options.dataConverter && { dataConverter: options.dataConverter }),
  };
  // Runs whose error names the diverging event by an attribute many events share (an activity type): located after.
  const unlocated: Array<{ run: ReplayedRun; events: temporal.api.history.v1.IHistoryEvent[] }> = [];
  for await (const result of Worker.runReplayHistories(replayOptions, remembered())) {
    const run: ReplayedRun = { workflowId: result.workflowId, runId: result.runId, ok: !result.error };
    if (result.error) {
      run.error = result.error.message;
      const events = eventsOf.get(result.workflowId) ?? [];
      run.divergence = describeDivergence(result.error.message, events);
      if (run.divergence.eventId === undefined && result.error.name === 'DeterminismViolationError')
        unlocated.push({ run, events });
    }
    runs.push(run);
  }
  for (const { run, events } of unlocated) {
    const task = await firstDivergingTask(events, (prefix) => replayFails(replayOptions, run.workflowId, prefix));
    // Within the one task that diverged, the attribute the error names usually belongs to one event only.
    const located = task && describeDivergence(run.error!, task);
    if (located?.eventId !== undefined) run.divergence = located;
  }
  return runs;
}

async function replayFails(
  options: ReplayWorkerOptions,
  workflowId: string,
  events: temporal.api.history.v1.IHistoryEvent[],
): Promise<boolean> {
  try {
    await Worker.runReplayHistory(options, { events }, workflowId);
    return false;
  } catch {
    return true;
  }
}

export interface ReplayRecentRunsOptions extends ReplayOptions {
  client: Client;
  /**
   * A visibility query naming the runs to replay, e.g. `WorkflowType = 'agentWorkflow' AND StartTime > '2026-01-01T00:00:00Z'`.
   * Default: every open run of the agent workflow, and its last `limit` closed runs.
   */
  query?: string;
  /** At most this many runs: the closed runs by default, or all those the query lists (default 100). */
  limit?: number;
}

/**
 * Replays the runs on a server against this code: the gate before a deploy (`agent replay`). By default every open
 * run of the agent workflow (those a deploy would move onto the new code) and the last 100 closed ones.
 */
export async function replayRecentRuns(options: ReplayRecentRunsOptions): Promise<ReplayedRun[]> {
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a whole number of at least 1, not ${limit}`);
  const selections = options.query
    ? [{ query: options.query, limit }]
    : [
        { query: `WorkflowType = '${agentWorkflowType}' AND ExecutionStatus = 'Running'`, limit: Infinity },
        // The last `limit` to close: Temporal's visibility stores (SQL and Elasticsearch alike, server 1.29) list by
        // close time, newest first, then by start time; ORDER BY is not accepted by SQL visibility, so that order is relied on.
        { query: `WorkflowType = '${agentWorkflowType}' AND ExecutionStatus != 'Running'`, limit },
      ];
  return replayHistories(listedHistories(options.client, selections), options);
}

async function* listedHistories(
  client: Client,
  selections: Array<{ query: string; limit: number }>,
): AsyncIterable<HistoryToReplay> {
  for (const { query, limit } of selections) {
    let listed = 0;
    // Fetched one at a time, as the replay worker asks for the next: a long list is never all in memory.
    for await (const execution of listedRuns(client, query, Math.min(limit, 1000))) {
      if (listed >= limit) break;
      listed += 1;
      try {
        const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
        yield { workflowId: execution.workflowId, history };
      } catch (error) {
        // A closed run the server deleted (its retention ran out) between the listing and now: nothing to replay.
        if (isGrpcServiceError(error) && error.code === 5 /* NOT_FOUND */) continue;
        throw error;
      }
    }
  }
}

/**
 * The runs a visibility query lists, by id only. Not `client.workflow.list()`: it decodes each run's memo with the
 * data converter, so a memo encrypted under a key this process lacks (a session's, sealed by the codec) would stop the
 * whole listing, where the gate must report that run as one that fails to replay.
 */
async function* listedRuns(
  client: Client,
  query: string,
  pageSize: number,
): AsyncIterable<{ workflowId: string; runId: string }> {
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize,
      nextPageToken,
    });
    for (const { execution } of page.executions ?? [])
      if (execution?.workflowId && execution.runId) yield { workflowId: execution.workflowId, runId: execution.runId };
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
}

/**
 * A history file as `agent history --out` writes it (the JSON of Temporal's History, as `temporal workflow show
 * --output json` and the Web UI's download also give). The workflow id comes from the started event (servers record
 * it there), else from `workflowId`: a run's commands name child workflows after it, so replay needs the real one.
 */
export async function readHistoryFile(file: string, workflowId?: string): Promise<HistoryToReplay> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new Error(`cannot read the history file ${file}: ${error.message}`, { cause: error });
  });
  let history: History;
  try {
    history = historyFromJSON(JSON.parse(text));
  } catch (error) {
    throw new Error(`${file} is not a workflow history in JSON (agent history --out writes one): ${(error as Error).message}`, {
      cause: error,
    });
  }
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (!started) throw new Error(`${file} does not start with a WorkflowExecutionStarted event: not a whole history`);
  const id = workflowId ?? started.workflowId;
  if (!id) throw new Error(`${file}: the history does not record its workflow id; give it`);
  return { workflowId: id, history };
}

/** The bundle a worker of this configuration runs: AGENT_WORKFLOW_BUNDLE, the cached one, or one built now. */
async function workerBundle(
  options: ReplayOptions,
  plugins: WorkerPlugin[],
): Promise<NonNullable<ReplayWorkerOptions['workflowBundle']>> {
  const prebuilt = process.env.AGENT_WORKFLOW_BUNDLE;
  if (prebuilt && !options.workflowsPath) return { codePath: prebuilt };
  const workflowsPath = options.workflowsPath ?? agentWorkflowsPath;
  if (options.workflowBundleCache) {
    const tracing = plugins.some((plugin) => plugin instanceof AgentPlugin && plugin.tracing);
    return cachedWorkflowBundle({
      directory: options.workflowBundleCache,
      workflowsPath,
      plugins,
      variant: tracing ? 'tracing' : 'plain',
    });
  }
  return bundleWorkflowCode({ workflowsPath, plugins });
}
