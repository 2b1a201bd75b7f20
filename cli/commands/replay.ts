// First: history files need one protobufjs under Temporal's packages; two fail here with the fix (install/).
import '../../install/check-one-protobufjs';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import {
  readHistoryFileRuns,
  replayFailureLine,
  replayHistories,
  replayRecentRuns,
  type ReplayedRun,
} from '../../client/replay-runs';
import { cacheDirectory } from '../dev-server/find-temporal-cli';
import { connect } from '../connect';
import { portAccepts } from '../dev-server/free-port';
import { loadConnectionSettings } from '../../worker/settings';
import { exitCodes } from '../exit-codes';
import { UsageError } from '../help';
import { invocationDirectory, type Output } from '../output';
import { cliRegistry } from '../registry';
import { AgentPlugin } from '../../worker/agent-plugin';
import { requireUserModule } from '../../agents/require-user-module';

/**
 * `agent replay`: the gate before a deploy. Replays the runs on the server (or history files) against the workflow
 * code of this checkout, with the bundle, plugins and data converter its worker would use; exit 1 names every run
 * the new code would break. `--workflows PATH` is the module of a worker that runs workflows of the user's own: it
 * is bundled instead of the agent workflow alone, and the default selection lists the runs of every workflow in it.
 */
export async function replayCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      file: { type: 'string', multiple: true },
      query: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      'allow-empty': { type: 'boolean' },
      workflows: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`replay takes no arguments (got "${positionals[0]}"); name files with --file`);
  const files = values.file ?? [];
  if (files.length > 0 && (values.query !== undefined || values.limit !== undefined))
    throw new UsageError('replay takes --file, or --query/--limit for runs on the server, not both');
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!/^\d+$/.test(values.limit!) || limit < 1))
    throw new UsageError(`--limit must be a whole number of at least 1, not "${values.limit}"`);
  if (values.query !== undefined && !values.query.trim()) throw new UsageError('--query is empty');
  // The workflows the worker runs, when they are the user's own (the module its Worker.create gets as workflowsPath).
  const workflowsPath = values.workflows === undefined ? undefined : path.resolve(invocationDirectory(), values.workflows);
  if (workflowsPath !== undefined && !existsSync(workflowsPath))
    throw new UsageError(`--workflows ${values.workflows}: no such file or directory (${workflowsPath})`);

  // The replay worker only reports problems: its state changes, and core's warning for each failed workflow task
  // (the failure this command prints, once, in its own words), would bury the one line per run.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    shutdownSignals: [],
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  // The worker's own plugin and definitions (AGENT_DEFINITIONS), and the bundle cache the CLI's worker keeps.
  const replayOptions = {
    plugins: [new AgentPlugin({ registry: cliRegistry() })],
    workflowBundleCache: path.join(cacheDirectory(), 'workflow-bundles'),
    workflowsPath,
  };

  let runs: ReplayedRun[];
  if (files.length > 0) {
    // A file that is missing or no history is a mistake in the command line: nothing is replayed.
    // A chain file (agent history --out) holds every run of a chain: each is replayed.
    const histories = await Promise.all(
      files.map((file) =>
        readHistoryFileRuns(path.resolve(invocationDirectory(), file)).catch((error: Error) => {
          throw new UsageError(error.message);
        }),
      ),
    );
    runs = await replayHistories(histories.flat(), replayOptions);
    if (!workflowsPath) runs = runs.map(withWorkflowsHint);
  } else {
    // With no server configured, connect() would start an empty embedded one, and a gate that replays nothing passes.
    if (!loadConnectionSettings().addressConfigured && !(await portAccepts(7233)))
      throw new UsageError(
        'no Temporal server to read runs from: set TEMPORAL_ADDRESS (or a profile), or replay files with --file',
      );
    const session = await connect({ ensureWorker: false, log: output.info });
    try {
      // By default, the runs of every workflow the user's module exports (their own and the agent's, if it re-exports it).
      const workflowTypes = workflowsPath && values.query === undefined ? exportedWorkflows(workflowsPath) : undefined;
      runs = await replayRecentRuns({ ...replayOptions, client: session.client, query: values.query, limit, workflowTypes });
      if (!workflowsPath) runs = runs.map(withWorkflowsHint);
    } finally {
      await session.close();
    }
  }

  // A selection that lists no run checks nothing: a typo in --query would pass the gate. Refused unless allowed.
  if (runs.length === 0 && !values['allow-empty']) {
    output.info(
      `no run matched ${values.query !== undefined ? `--query ${values.query}` : 'the default selection'}: the gate checked nothing (--allow-empty accepts that)`,
    );
    if (values.json) output.result(JSON.stringify({ runs: [], failed: 0, empty: true }));
    return exitCodes.failed;
  }
  const failed = runs.filter((run) => !run.ok).length;
  if (values.json) {
    // error is the line a person reads; divergence has its parts (eventId, eventType, difference) for a program.
    const described = runs.map((run) => (run.ok ? run : { ...run, error: replayFailureLine(run) }));
    output.result(JSON.stringify({ runs: described, failed }));
  } else {
    for (const run of runs) output.result(runLine(run));
    output.result(`${runs.length} run${runs.length === 1 ? '' : 's'} replayed: ${runs.length - failed} ok, ${failed} FAILED`);
  }
  return failed > 0 ? exitCodes.failed : exitCodes.answered;
}

/** The workflow functions a workflows module exports: the workflow types a worker that loads it runs. */
function exportedWorkflows(workflowsPath: string): string[] {
  let exported: Record<string, unknown>;
  try {
    exported = requireUserModule(workflowsPath);
  } catch (error) {
    throw new UsageError(
      `--workflows ${workflowsPath}: could not load it to list its workflows (${(error as Error).message}); ` +
        'name the runs to replay with --query',
    );
  }
  const names = Object.keys(exported).filter((name) => name !== 'default' && typeof exported[name] === 'function');
  if (names.length === 0) throw new UsageError(`--workflows ${workflowsPath} exports no workflow function`);
  return names;
}

// The SDK's words for a history whose workflow type the bundle lacks: a workflow of the user's own, most likely.
const unknownTypePattern = /Failed to initialize workflow of type '[^']*': no such function is exported/;

function withWorkflowsHint(run: ReplayedRun): ReplayedRun {
  if (run.ok || !run.error || !unknownTypePattern.test(run.error)) return run;
  const hint = ` (a workflow of your own: name the module your worker loads its workflows from with --workflows PATH)`;
  return {
    ...run,
    error: run.error + hint,
    ...(run.divergence && { divergence: { ...run.divergence, difference: run.divergence.difference + hint } }),
  };
}

function runLine(run: ReplayedRun): string {
  const outcome = run.ok ? `ok${run.note ? ` (${run.note})` : ''}` : `FAILED: ${replayFailureLine(run)}`;
  return `${run.workflowId} ${run.runId} ${outcome}`;
}
