import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Runtime, Worker, type ReplayWorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import { AgentPlugin, workflowsPath as agentWorkflowsPath } from '../worker/agent-plugin';
import { cachedWorkflowBundle } from '../worker/bundle-cache';
import { agentWorkflowType } from '../workflows/definitions';
import { describeDivergence, type Divergence } from './replay-divergence';
import { firstDivergingTask } from './replay-locate';
import { readHistoriesFile } from './history-chain';

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
  /** Why an ok run had nothing to check (a history in which no workflow task ran). */
  note?: string;
}

// A history replays in well under a second; minutes mean the replay worker waits for something the history lacks.
const defaultRunTimeoutMs = 5 * 60_000;

function taskStarted(history: History): boolean {
  return (history.events ?? []).some(
    (event) => event.eventType === 6 || String(event.eventType) === 'EVENT_TYPE_WORKFLOW_TASK_STARTED',
  );
}

function runIdentity({ workflowId, history }: HistoryToReplay): { workflowId: string; runId: string } {
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  return { workflowId, runId: started?.originalExecutionRunId || 'unknown' };
}

async function withinMs<T>(promise: Promise<T>, milliseconds: number): Promise<T | 'timed out'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timed out'>((resolve) => (timer = setTimeout(() => resolve('timed out'), milliseconds)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
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
  /** A run the replay worker has not answered within this long fails (default 5 minutes); the rest are not replayed. */
  runTimeoutMs?: number;
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
  // The history the replay worker has now, for the answer a run that never replays gets.
  let current: HistoryToReplay | undefined;
  async function* replayable(): AsyncIterable<HistoryToReplay> {
    for await (const item of remembered()) {
      // No workflow task ran, so the run made no command to compare, and the replay worker would wait for a task
      // that never comes (a file holding only the start event hung `agent replay` for good): answered here.
      if (!taskStarted(item.history)) {
        runs.push({ ...runIdentity(item), ok: true, note: 'no workflow task ran in this history: no command to compare' });
        continue;
      }
      current = item;
      yield item;
    }
  }
  const timeoutMs = options.runTimeoutMs ?? defaultRunTimeoutMs;
  // Runs whose error names the diverging event by an attribute many events share (an activity type): located after.
  const unlocated: Array<{ run: ReplayedRun; events: temporal.api.history.v1.IHistoryEvent[] }> = [];
  const results = Worker.runReplayHistories(replayOptions, replayable())[Symbol.asyncIterator]();
  for (;;) {
    const next = await withinMs(results.next(), timeoutMs);
    if (next === 'timed out') {
      // Every history gets an answer in bounded time: one the replay worker never answers fails the gate, and the
      // worker is left behind (it cannot be stopped mid-history), with the histories after it unreplayed.
      runs.push({
        ...(current ? runIdentity(current) : { workflowId: 'unknown', runId: 'unknown' }),
        ok: false,
        error: `the replay gave no answer within ${Math.round(timeoutMs / 1000)} s; histories after it were not replayed`,
      });
      break;
    }
    if (next.done) break;
    const result = next.value;
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
  /**
   * The workflow types the default selection lists (default: the agent workflow alone). A worker that runs workflows
   * of your own (`workflowsPath`) names them here, so that a change to them is replayed too: `agent replay
   * --workflows PATH` passes every workflow the module exports.
   */
  workflowTypes?: string[];
}

/**
 * Replays the runs on a server against this code: the gate before a deploy (`agent replay`). By default every open
 * run of the agent workflow (those a deploy would move onto the new code) and the last 100 closed ones.
 */
export async function replayRecentRuns(options: ReplayRecentRunsOptions): Promise<ReplayedRun[]> {
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a whole number of at least 1, not ${limit}`);
  const types = workflowTypeFilter(options.workflowTypes ?? [agentWorkflowType]);
  const selections = options.query
    ? [{ query: options.query, limit }]
    : [
        { query: `${types} AND ExecutionStatus = 'Running'`, limit: Infinity },
        // The last `limit` to close: Temporal's visibility stores (SQL and Elasticsearch alike, server 1.29) list by
        // close time, newest first, then by start time; ORDER BY is not accepted by SQL visibility, so that order is relied on.
        { query: `${types} AND ExecutionStatus != 'Running'`, limit },
      ];
  return replayHistories(listedHistories(options.client, selections), options);
}

function workflowTypeFilter(types: string[]): string {
  if (types.length === 0) throw new RangeError('workflowTypes lists no workflow type');
  // Names go inside a query string: only what a JavaScript export can be named without quotes (letters, digits, _ and $).
  const unfit = types.find((type) => !/^[A-Za-z_$][\w$]*$/.test(type));
  if (unfit !== undefined) throw new RangeError(`workflow type "${unfit}" cannot be named in a visibility query`);
  const quoted = [...new Set(types)].map((type) => `'${type}'`);
  return quoted.length === 1 ? `WorkflowType = ${quoted[0]}` : `WorkflowType IN (${quoted.join(', ')})`;
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
 * The runs a history file holds, oldest first: every run of a chain, as `agent history --out` writes it
 * (client/history-chain.ts), or the one history of a file holding the JSON of Temporal's History (older `agent
 * history`, `temporal workflow show --output json`, the Web UI's download). The workflow id comes from each started
 * event (servers record it there), else from the chain file, else from `workflowId`: a run's commands name child
 * workflows after it, so replay needs the real one.
 */
export async function readHistoryFileRuns(file: string, workflowId?: string): Promise<HistoryToReplay[]> {
  const contents = await readHistoriesFile(file);
  return contents.histories.map((history, index) => {
    const where = contents.histories.length > 1 ? `${file} (run ${index + 1} of ${contents.histories.length})` : file;
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    if (!started) throw new Error(`${where} does not start with a WorkflowExecutionStarted event: not a whole history`);
    const id = workflowId ?? started.workflowId ?? contents.workflowId;
    if (!id) throw new Error(`${where}: the history does not record its workflow id; give it`);
    return { workflowId: id, history };
  });
}

/**
 * The one run of a single-history file (see readHistoryFileRuns). A chain file holds several runs, and replaying one
 * of them would check only part of the chain: it is refused here; read it with readHistoryFileRuns.
 */
export async function readHistoryFile(file: string, workflowId?: string): Promise<HistoryToReplay> {
  const runs = await readHistoryFileRuns(file, workflowId);
  if (runs.length > 1)
    throw new Error(`${file} holds a chain of ${runs.length} runs (continue-as-new): read all of them with readHistoryFileRuns`);
  return runs[0];
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
      logger: Runtime.instance().logger,
    });
  }
  // Through the runtime's logger: webpack's report is INFO, which a gate that prints one line per run keeps quiet.
  return bundleWorkflowCode({ workflowsPath, plugins, logger: Runtime.instance().logger });
}
