import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, Runtime, type ReplayWorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import type { Definitions } from '../agents/registry';
import {
  readHistoryFileRuns,
  replayFailureLine,
  replayHistories,
  replayRecentRuns,
  type HistoryToReplay,
  type ReplayedRun,
} from '../client/replay-runs';
import { AgentPlugin, workflowsPath as agentWorkflowsPath } from '../worker/agent-plugin';

export interface HistoryReplayOptions extends Definitions {
  /**
   * Your worker's plugins, as its Worker.create gets them (they give the replay its data converter and interceptors).
   * Default: an AgentPlugin with `agents`, `tools`, `providers` and `mcpServers`, as createAgentTestEnv's worker has.
   */
  plugins?: WorkerPlugin[];
  /** Your workflows, when your worker runs its own (default: the agent workflow alone). */
  workflowsPath?: string;
  /** A prebuilt workflow bundle (default: bundled now, a few seconds). */
  workflowBundle?: ReplayWorkerOptions['workflowBundle'];
  /** The data converter, when your worker's is not its plugins' (payload keys, a bucket: the same as the worker's). */
  dataConverter?: DataConverter;
}

/**
 * Where histories come from: a file `agent history --out` wrote, a directory of them (every `.json` in it), a history
 * you fetched (`{ workflowId, history }`), or the runs on a server (`{ client, query?, limit? }`: by default every open
 * run of the agent workflow and the last 100 closed, as `agent replay`).
 */
export type HistorySource = string | HistoryToReplay | { client: Client; query?: string; limit?: number };

/** Histories that did not replay against this code: the message names each, where it diverged, and what differed. */
export class HistoryReplayError extends Error {
  constructor(
    readonly failed: Array<ReplayedRun & { source: string }>,
    replayed: number,
  ) {
    super(
      `${failed.length} of ${replayed} histor${replayed === 1 ? 'y does' : 'ies do'} not replay against this code:\n` +
        failed.map((run) => `  ${run.source}: ${replayFailureLine(run)}`).join('\n'),
    );
    this.name = 'HistoryReplayError';
  }
}

/**
 * Replays recorded histories against your code (your workflows, agents and plugins) and says for each whether it
 * replayed. A workflow change that would break the runs in flight (a command where the history has another) fails.
 */
export async function replayAgentHistories(
  sources: HistorySource | HistorySource[],
  options: HistoryReplayOptions = {},
): Promise<Array<ReplayedRun & { source: string }>> {
  const plugins = options.plugins ?? [
    new AgentPlugin({
      agents: options.agents,
      tools: options.tools,
      providers: options.providers,
      mcpServers: options.mcpServers,
      tracing: false,
    }),
  ];
  const replayOptions = {
    plugins,
    // Bundled once for files and server runs alike, logging through the runtime's logger (webpack's report is INFO).
    workflowBundle:
      options.workflowBundle ??
      (await bundleWorkflowCode({
        workflowsPath: options.workflowsPath ?? agentWorkflowsPath,
        plugins,
        logger: Runtime.instance().logger,
      })),
    dataConverter: options.dataConverter,
  };
  const results: Array<ReplayedRun & { source: string }> = [];
  const histories: Array<{ source: string; history: HistoryToReplay }> = [];
  for (const source of Array.isArray(sources) ? sources : [sources]) {
    if (typeof source === 'string') histories.push(...(await historiesAt(source)));
    else if ('history' in source) histories.push({ source: source.workflowId, history: source });
    else {
      // Runs on a server are named by their workflow and run ids.
      for (const run of await replayRecentRuns({ ...replayOptions, ...source }))
        results.push({ ...run, source: `${run.workflowId} (run ${run.runId})` });
    }
  }
  if (histories.length > 0) {
    const runs = await replayHistories(
      histories.map(({ history }) => history),
      replayOptions,
    );
    // One result per history, in the order given.
    runs.forEach((run, index) => results.push({ ...run, source: histories[index].source }));
  }
  return results;
}

/** Replays the histories, and throws a HistoryReplayError naming each that does not replay: for a test. */
export async function expectHistoriesToReplay(
  sources: HistorySource | HistorySource[],
  options: HistoryReplayOptions = {},
): Promise<ReplayedRun[]> {
  const runs = await replayAgentHistories(sources, options);
  if (runs.length === 0)
    throw new Error(`no histories to replay in ${JSON.stringify(sources)}: a gate that replays nothing passes nothing`);
  const failed = runs.filter((run) => !run.ok);
  if (failed.length > 0) throw new HistoryReplayError(failed, runs.length);
  return runs;
}

async function historiesAt(file: string): Promise<Array<{ source: string; history: HistoryToReplay }>> {
  const info = await stat(file).catch(() => undefined);
  if (!info) throw new Error(`no history file or directory at ${file}`);
  const files = info.isDirectory()
    ? (await readdir(file))
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => path.join(file, name))
    : [file];
  // A chain file holds every run of a chain: each is a history of its own, named by the file and its place in it.
  const runs = await Promise.all(
    files.map(async (name) => {
      const histories = await readHistoryFileRuns(name);
      return histories.map((history, index) => ({
        source: histories.length > 1 ? `${name} (run ${index + 1} of ${histories.length})` : name,
        history,
      }));
    }),
  );
  return runs.flat();
}
