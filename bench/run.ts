/**
 * `npm run bench [-- <name>...] [--quick]`: the benchmarks, on dev servers of
 * their own with scripted models. Markdown tables go to stdout, progress to
 * stderr. Not part of `npm test`; BENCHMARKS.md holds the dashboard, bench/NOTES.md the runs.
 */
import { performance } from 'node:perf_hooks';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { attachmentsBench } from './attachments';
import { batch } from './batch';
import { encryption } from './encryption';
import { evalBench } from './eval';
import { firstRun } from './first-run';
import { historyBytes } from './history-bytes';
import { objectStorage } from './object-storage';
import { overhead } from './overhead';
import { parallel } from './parallel';
import { peer } from './peer';
import { promptCaching } from './prompt-caching';
import { quotas } from './quotas';
import { replay } from './replay';
import { sessions } from './sessions';
import { stack } from './stack';
import { streaming } from './streaming';
import { webChat } from './web-chat';
import { workflowBundle } from './workflow-bundle';
import type { BenchContext, Benchmark } from './support/benchmark';
import { startBenchEnvironment } from './support/environment';
import { formatMs, targetTable, type TargetRow } from './support/format';
import { log } from './support/log';
import { runLoopSession } from './support/loop-session';
import type { Session } from './support/session';

const benchmarks: Benchmark[] = [
  peer,
  historyBytes,
  overhead,
  parallel,
  replay,
  sessions,
  objectStorage,
  encryption,
  streaming,
  webChat,
  firstRun,
  workflowBundle,
  stack,
  promptCaching,
  batch,
  quotas,
  evalBench,
  attachmentsBench,
];

const usage = [
  `usage: npm run bench -- [${benchmarks.map((benchmark) => benchmark.name).join(' | ')} ...] [--quick]`,
  '  --quick  smaller sizes, to try the suite out (minutes instead of the full run)',
].join('\n');

const flags = ['--quick'];

function parseArguments(args: string[]): { selected: Benchmark[]; quick: boolean } {
  const quick = args.includes('--quick');
  const names = args.filter((arg) => !flags.includes(arg));
  const unknown = names.filter((name) => !benchmarks.some((benchmark) => benchmark.name === name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark or option: ${unknown.join(', ')}\n${usage}`);
    process.exit(2);
  }
  const selected = names.length === 0 ? benchmarks : benchmarks.filter((benchmark) => names.includes(benchmark.name));
  return { selected, quick };
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(usage);
    return;
  }
  const { selected, quick } = parseArguments(process.argv.slice(2));
  // Core's own logs too go through the quiet logger (to stderr), not straight to stdout.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  const started = performance.now();
  const environment = await startBenchEnvironment();
  // Ctrl-C stops the dev server and removes the temporary directories too.
  process.once('SIGINT', () => void environment.close().finally(() => process.exit(130)));
  console.log(`# Benchmarks${quick ? ' (--quick: smaller sizes)' : ''}\n`);
  const loopSessions = new Map<number, Promise<Session>>();
  const context: BenchContext = {
    environment,
    quick,
    loopSession(iterations) {
      if (!loopSessions.has(iterations)) loopSessions.set(iterations, runLoopSession(environment, iterations));
      return loopSessions.get(iterations)!;
    },
  };
  const allTargets: TargetRow[] = [];
  try {
    for (const benchmark of selected) {
      const benchStarted = performance.now();
      const report = await benchmark.run(context);
      allTargets.push(...report.targets);
      console.log(`## ${benchmark.name}: ${benchmark.title}\n`);
      for (const block of [...report.details, targetTable(report.targets)]) console.log(`${block}\n`);
      log(`${benchmark.name} took ${formatMs(performance.now() - benchStarted)}`);
    }
    if (selected.length > 1) console.log(`## Summary\n\n${targetTable(allTargets)}\n`);
  } finally {
    await environment.close();
  }
  log(`done in ${formatMs(performance.now() - started)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
