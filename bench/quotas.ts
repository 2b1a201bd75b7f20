import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { startAgent } from '../client/start-agent';
import { ensureTemporalCli } from '../cli/dev-server/find-temporal-cli';
import { freePort } from '../cli/dev-server/free-port';
import { createAgentWorker } from '../worker/create-worker';
import { startDevServer } from '../test/support/dev-server-process';
import { FakeModelServer, openaiReply } from '../test/support/fake-model-server';
import { spawnWorker } from '../test/support/spawned-worker';
import { RequestRateLimit } from '../test/support/wire-rules/rate-limit';
import type { Benchmark } from './support/benchmark';
import { formatMs, markdownTable } from './support/format';
import { log } from './support/log';
import { percentile } from './support/stats';

const model = 'openai:gpt-4o-mini';
const sizes = { full: { quotaRuns: 200, tenantA: 300, tenantB: 10 }, quick: { quotaRuns: 60, tenantA: 100, tenantB: 10 } };
const providerLimit = 10;
// Half the provider's: the server's limiter lets a burst through beside its rate (test/e2e/quotas.test.ts).
const sharedLimit = 5;

/**
 * Issue 24's two tables, side by side in one run. Shared quota: two workers (one here, one in a process of its own)
 * and a provider the fake server limits to 10 requests a second (429 beyond, with Retry-After), N one-call runs
 * started at once: with the provider's own queue limited to 5/s by the server, against the model activity's
 * per-worker 429 backoff alone. Fairness: on a dev server of its own (one task queue partition), tenant A queues its
 * runs, then tenant B its ten, against a worker with two activity slots; B's time to finish, with
 * matching.enableFairness on and with the server's defaults.
 */
/** The built Temporal CLI (a downloaded one has no path to start a server of our own with). */
async function temporalCliPath(): Promise<string> {
  const executable = await ensureTemporalCli(log);
  if (executable.type !== 'existing-path')
    throw new Error('the fairness table needs a Temporal CLI on this machine (npm run temporal:cli)');
  return executable.path;
}

export const quotas: Benchmark = {
  name: 'quotas',
  title: 'Provider quotas shared across workers, and fairness between tenants',
  async run({ environment, quick }) {
    const size = quick ? sizes.quick : sizes.full;
    const fake = await FakeModelServer.start();
    const bundle = path.join(await environment.temporaryDirectory('bench-quotas-'), 'workflow-bundle.js');
    await writeFile(bundle, environment.bundleCode);
    try {
      const shared = await quotaRun(true);
      const alone = await quotaRun(false);
      const fair = await tenantRun(['matching.enableFairness=true']);
      const fifo = await tenantRun([]);
      const quotaTable = markdownTable(
        ['two workers, provider at 10 req/s', 'runs', '429s', 'model requests', 'wall time'],
        [shared, alone].map((row) => [
          row.label,
          String(size.quotaRuns),
          String(row.refused),
          String(row.requests),
          formatMs(row.wallMs),
        ]),
      );
      const fairnessTable = markdownTable(
        ['server', `tenant B's ${size.tenantB} runs: p95 to finish`, 'B median', `all ${size.tenantA + size.tenantB} runs`],
        [fair, fifo].map((row) => [row.label, formatMs(row.bP95), formatMs(row.bMedian), formatMs(row.allMs)]),
      );
      return {
        details: [
          `Shared quota (${size.quotaRuns} runs, one model call each, the fake provider answers in 50 ms):\n\n${quotaTable}`,
          `Fairness (tenant A queues ${size.tenantA} runs, then tenant B ${size.tenantB}; one worker, 2 activity slots, 100 ms model calls):\n\n${fairnessTable}`,
        ],
        targets: [],
      };
    } finally {
      await fake.close();
    }

    async function quotaRun(withLimit: boolean) {
      log(`quotas: ${size.quotaRuns} runs on two workers, ${withLimit ? `shared limit ${sharedLimit}/s` : 'no shared limit'}`);
      fake.reset();
      fake.rateLimit = new RequestRateLimit(providerLimit);
      fake.respondWith(() => ({ ...openaiReply({ content: 'ok' }), delayMs: 50 }) as ReturnType<typeof openaiReply>);
      const server = await environment.server('project');
      const taskQueue = `bench-quotas-${randomUUID()}`;
      const workspace = environment.workspace;
      const local = await createAgentWorker({
        connection: server.nativeConnection,
        namespace: server.namespace,
        taskQueue,
        env: fake.providerEnv,
        workspaceRoot: workspace,
        workflowBundle: { codePath: bundle },
        ...(withLimit && { providerQueues: { openai: { requestsPerSecond: sharedLimit } } }),
      });
      const other = await spawnWorker({
        address: server.address,
        taskQueue,
        identity: 'bench-worker-b',
        env: {
          ...fake.providerEnv,
          AGENT_WORKFLOW_BUNDLE: bundle,
          AGENT_WORKSPACE_ROOT: workspace,
          ...(withLimit && { AGENT_PROVIDER_QUEUES: `openai:${sharedLimit}` }),
        },
      });
      try {
        const client = new Client({
          connection: server.connection,
          namespace: server.namespace,
          dataConverter: environment.dataConverter,
        });
        const started = performance.now();
        await local.runUntil(async () => {
          const handles = await Promise.all(
            Array.from({ length: size.quotaRuns }, (_, index) =>
              startAgent(client, { prompt: `task ${index}`, model, tools: [], workspace }, { taskQueue }),
            ),
          );
          await Promise.all(handles.map((handle) => handle.result()));
        });
        return {
          label: withLimit ? `shared limit (${sharedLimit}/s on the provider's queue)` : 'per-worker 429 backoff alone',
          refused: fake.rateLimit.refused,
          requests: fake.requests.length,
          wallMs: performance.now() - started,
        };
      } finally {
        await other.kill();
      }
    }

    async function tenantRun(dynamicConfig: string[]) {
      log(`quotas: tenants A ${size.tenantA} and B ${size.tenantB}, ${dynamicConfig.length ? 'fairness on' : 'server defaults'}`);
      fake.reset();
      fake.respondWith(() => ({ ...openaiReply({ content: 'ok' }), delayMs: 100 }) as ReturnType<typeof openaiReply>);
      const server = await startDevServer({
        cli: await temporalCliPath(),
        port: await freePort(),
        dbFilename: path.join(await environment.temporaryDirectory('bench-fairness-'), 'db.sqlite'),
        dynamicConfig: ['matching.numTaskqueueReadPartitions=1', 'matching.numTaskqueueWritePartitions=1', ...dynamicConfig],
      });
      const nativeConnection = await NativeConnection.connect({ address: server.address });
      const connection = await Connection.connect({ address: server.address });
      try {
        const client = new Client({ connection, dataConverter: environment.dataConverter });
        const taskQueue = `bench-fairness-${randomUUID()}`;
        const workspace = environment.workspace;
        const worker = await createAgentWorker({
          connection: nativeConnection,
          namespace: 'default',
          taskQueue,
          env: fake.providerEnv,
          workspaceRoot: workspace,
          workflowBundle: { codePath: bundle },
          overrides: { maxConcurrentActivityTaskExecutions: 2 },
        });
        const start = (tenant: string, index: number) =>
          startAgent(client, { prompt: `${tenant} ${index}`, model, tools: [], workspace }, { taskQueue, tenant });
        const started = performance.now();
        return await worker.runUntil(async () => {
          const a = await Promise.all(Array.from({ length: size.tenantA }, (_, index) => start('A', index)));
          const bStarted = performance.now();
          const b = await Promise.all(Array.from({ length: size.tenantB }, (_, index) => start('B', index)));
          const bTimes = await Promise.all(b.map((handle) => handle.result().then(() => performance.now() - bStarted)));
          await Promise.all(a.map((handle) => handle.result()));
          return {
            label: dynamicConfig.length ? 'fairness on (matching.enableFairness=true)' : 'server defaults (fairness off)',
            bP95: percentile(bTimes, 95),
            bMedian: percentile(bTimes, 50),
            allMs: performance.now() - started,
          };
        });
      } finally {
        await connection.close();
        await nativeConnection.close();
        await server.stop();
      }
    }
  },
};
