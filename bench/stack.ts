import { randomUUID } from 'node:crypto';
import { chmod } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ensureTemporalCli } from '../cli/dev-server/find-temporal-cli';
import { readComposeFile } from '../stack/compose-file';
import { startTemporalOnPostgres } from '../stack/temporal-on-postgres';
import { ensureTemporalServer } from '../stack/temporal-server';
import { builtInTools } from '../tools';
import { floorActivities } from './floor/activities';
import type { Benchmark } from './support/benchmark';
import { benchTools } from './support/bench-tools';
import type { AgentTarget, BenchEnvironment } from './support/environment';
import { floorBundleCode, floorModelActivityType, floorOn, runFloor, type FloorTarget } from './support/floor';
import { formatCount, formatMs, markdownTable, type TargetRow } from './support/format';
import { iterationTimes, modelActivityType } from './support/history';
import { log } from './support/log';
import { runLoopSession } from './support/loop-session';
import { median, percentile } from './support/stats';
import { createAgentWorker } from '../worker/create-worker';

/**
 * The production topology's server against the dev server: the same loop (ours, and the bare floor workflow of
 * bench/floor) on `temporal server start-dev` (one process, SQLite) and on the Temporal server `npm run stack`
 * runs (the version docker-compose.yml pins, on PostgreSQL, with docker/temporal-dynamic-config.yaml: eager
 * activities on), side by side in one run: rounds of one run of each, the order rotating each round.
 */
export const stack: Benchmark = {
  name: 'stack',
  title: 'The loop on the PostgreSQL-backed server of `npm run stack` against the dev server',
  async run(context) {
    const rounds = context.quick ? 2 : 4;
    const iterations = context.quick ? 20 : 100;
    const environment = context.environment;
    const directory = await environment.temporaryDirectory('bench-stack-');
    // PostgreSQL runs as the postgres user when this runs as root: it must be able to enter its directory.
    await chmod(directory, 0o755);
    const cli = await ensureTemporalCli(log);
    if (cli.type !== 'existing-path') throw new Error('the stack benchmark needs a Temporal CLI binary: npm run temporal:cli');
    log('stack: PostgreSQL, the schemas and the Temporal server of npm run stack...');
    const production = await startTemporalOnPostgres({
      directory,
      compose: readComposeFile(),
      build: await ensureTemporalServer(log),
      cli: cli.path,
      log,
    });
    const nativeConnection = await NativeConnection.connect({ address: production.server.address });
    const connection = await Connection.connect({ address: production.server.address });
    const workers: Worker[] = [];
    const running: Promise<void>[] = [];
    try {
      const onPostgres = await workersOn(environment, nativeConnection, connection, (worker) => {
        workers.push(worker);
        running.push(worker.run());
      });
      const onDevServer = { agent: await environment.agentOn('project'), floor: await floorOn(environment, 'project') };
      const variants = [
        { label: 'our agent loop', server: 'dev server (SQLite)', run: (count: number) => ours(onDevServer.agent, count) },
        { label: 'bare floor workflow', server: 'dev server (SQLite)', run: (count: number) => floor(onDevServer.floor, count) },
        { label: 'our agent loop', server: 'npm run stack (PostgreSQL)', run: (count: number) => ours(onPostgres.agent, count) },
        {
          label: 'bare floor workflow',
          server: 'npm run stack (PostgreSQL)',
          run: (count: number) => floor(onPostgres.floor, count),
        },
      ];
      async function ours(target: AgentTarget, count: number) {
        const session = await runLoopSession(environment, count, target);
        return { completed: session.completed, times: iterationTimes(session.runs, modelActivityType) };
      }
      async function floor(target: FloorTarget, count: number) {
        const run = await runFloor(target, count, 'activity', 60_000 + 500 * count);
        return { completed: run.completed, times: iterationTimes(run.runs, floorModelActivityType) };
      }

      for (const variant of variants) await variant.run(10); // warm-up: bundles load, connections and caches warm
      const measured = variants.map((variant) => ({ variant, times: [] as number[], completed: 0, runs: 0 }));
      for (let round = 0; round < rounds; round++) {
        log(`stack: round ${round + 1} of ${rounds}: ${variants.length} runs of ${iterations} iterations`);
        for (let offset = 0; offset < measured.length; offset++) {
          const entry = measured[(round + offset) % measured.length];
          const run = await entry.variant.run(iterations);
          entry.runs += 1;
          entry.completed += run.completed ? 1 : 0;
          entry.times.push(...run.times);
        }
      }
      const medianOf = (label: string, server: string) =>
        median(measured.find((entry) => entry.variant.label === label && entry.variant.server === server)!.times);
      const rows = measured.map((entry) => [
        entry.variant.label,
        entry.variant.server,
        `${entry.completed} of ${entry.runs} completed`,
        formatCount(entry.times.length),
        formatMs(median(entry.times)),
        formatMs(percentile(entry.times, 95)),
        `${(median(entry.times) / medianOf('bare floor workflow', entry.variant.server)).toFixed(2)}×`,
      ]);
      const oursDev = medianOf('our agent loop', 'dev server (SQLite)');
      const oursPg = medianOf('our agent loop', 'npm run stack (PostgreSQL)');
      const floorPg = medianOf('bare floor workflow', 'npm run stack (PostgreSQL)');
      const allCompleted = measured.every((entry) => entry.completed === entry.runs);
      const targets: TargetRow[] = [
        {
          measure: 'our loop iteration on the PostgreSQL-backed server against the bare floor on the same server',
          result: `${formatMs(oursPg)} vs ${formatMs(floorPg)}: ${(oursPg / floorPg).toFixed(2)}×`,
          target: '≤ 1.1× the floor (as on the dev server)',
          pass: allCompleted && oursPg <= 1.1 * floorPg,
        },
        {
          measure: 'our loop iteration: PostgreSQL-backed server against the dev server',
          result: `${formatMs(oursPg)} vs ${formatMs(oursDev)}: ${(oursPg / oursDev).toFixed(2)}×`,
          target: 'measured (no target: the storage differs)',
          pass: allCompleted,
        },
      ];
      return {
        details: [
          markdownTable(
            ['loop', 'server', 'runs', 'iterations', 'per iteration: median', 'p95', 'vs the floor, same server'],
            rows,
          ),
          `Each run is ${formatCount(iterations)} iterations; ${rounds} rounds run one of each in turn, the order rotating each round, ` +
            'after a 10-iteration warm-up run of each. Both servers run Temporal 1.29.1 with eager activities on (the dev server by ' +
            'flag, the stack by docker/temporal-dynamic-config.yaml); the stack server keeps history in PostgreSQL (fsync on, on ' +
            'this machine’s disk) with 4 history shards, as the auto-setup image configures it. Same workers, same scripted model.',
        ],
        targets,
      };
    } finally {
      // The workers stop before their server does: a worker shutting down against a stopped server would wait.
      for (const worker of workers) worker.shutdown();
      await Promise.allSettled(running);
      await connection.close();
      await nativeConnection.close();
      await production.stop();
    }
  },
};

/** Our agent worker and the floor worker on the stack's server, as the benchmark environment has them on the dev server. */
async function workersOn(
  environment: BenchEnvironment,
  nativeConnection: NativeConnection,
  connection: Connection,
  run: (worker: Worker) => void,
): Promise<{ agent: AgentTarget; floor: FloorTarget }> {
  const agentQueue = `bench-stack-${randomUUID()}`;
  const floorQueue = `bench-stack-floor-${randomUUID()}`;
  run(
    await createAgentWorker({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue: agentQueue,
      tools: [...builtInTools, ...benchTools],
      env: {},
      workspaceRoot: environment.workspace,
      workflowBundle: { code: environment.bundleCode },
      activityOverrides: { callModel: environment.model.callModel },
    }),
  );
  run(
    await Worker.create({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue: floorQueue,
      workflowBundle: { code: await floorBundleCode() },
      activities: floorActivities,
    }),
  );
  const server = {
    setting: 'project' as const,
    address: '',
    namespace: 'default',
    nativeConnection,
    connection,
    close: async () => {},
  };
  return {
    agent: {
      server,
      client: new Client({ connection, namespace: 'default', dataConverter: environment.dataConverter }),
      taskQueue: agentQueue,
    },
    floor: { client: new Client({ connection, namespace: 'default' }), taskQueue: floorQueue },
  };
}
