import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startAgent } from '../client/start-agent';
import { eagerActivityArgs, liftedDispatchArgs } from '../cli/dev-server/dev-server-options';
import { createAgentWorker, type AgentWorkerOptions } from '../worker/create-worker';
import { FakeModelServer, openaiReply } from '../test/support/fake-model-server';
import { spawnWorker } from '../test/support/spawned-worker';
import { RequestRateLimit } from '../test/support/wire-rules/rate-limit';
import { measureDispatchRate } from './quota-dispatch/dispatch-rate';
import type { Benchmark, BenchContext } from './support/benchmark';
import { formatMs, markdownTable } from './support/format';
import { log } from './support/log';
import { startOwnDevServer, type OwnDevServer } from './support/own-dev-server';
import { percentile } from './support/stats';

const model = 'openai:gpt-4o-mini';
const sizes = {
  full: { quotaRuns: 200, tenantA: 300, tenantB: 10, backlog: 60 },
  quick: { quotaRuns: 60, tenantA: 100, tenantB: 10, backlog: 30 },
};
const providerLimit = 10;
// Half the provider's: a token bucket lets its burst through beside its rate, so a second can see up to twice the
// limit (docs/production.md, "Quotas and tenants").
const sharedLimit = 5;
/** The project's dev server settings (lifted dispatch limit, eager activities), as dynamic config values. */
const projectSettings = [...liftedDispatchArgs, ...eagerActivityArgs].filter((arg) => arg !== '--dynamic-config-value');
const onePartition = ['matching.numTaskqueueReadPartitions=1', 'matching.numTaskqueueWritePartitions=1'];

/** A dev server of the bench's own, with `dynamicConfig`. */
async function ownServer(environment: BenchContext['environment'], dynamicConfig: string[]): Promise<OwnDevServer> {
  const directory = await environment.temporaryDirectory('bench-quotas-server-');
  return startOwnDevServer({ directory, dynamicConfig, dataConverter: environment.dataConverter });
}

/** Requests a second from the first to the last, and the most in any one second (a window starting at each). */
function requestRates(times: number[]): { perSecond: number; busiestSecond: number } {
  const sorted = [...times].sort((a, b) => a - b);
  const spanSeconds = (sorted.at(-1)! - sorted[0]) / 1000;
  const busiestSecond = Math.max(
    ...sorted.map((start, index) => sorted.slice(index).filter((time) => time - start < 1000).length),
  );
  return { perSecond: (sorted.length - 1) / Math.max(spanSeconds, 0.001), busiestSecond };
}

/**
 * Issue 24's tables, side by side in one run, each on a dev server of its own.
 * Shared quota: two workers (one here, one in a process of its own) and a provider the fake server limits to 10
 * requests a second (429 beyond, with Retry-After), N one-call runs started at once: the provider's own queue limited
 * to 5/s by the server (task queues in the server's default four partitions, and in one), against the model
 * activity's per-worker 429 backoff alone.
 * Dispatch: how the server hands out a queue's backlog at a limit, with four partitions and with one.
 * Fairness: one task queue partition; tenant A queues its runs, then tenant B its ten, against a worker with two
 * activity slots; B's time to finish, with matching.enableFairness on and with the server's defaults.
 */
export const quotas: Benchmark = {
  name: 'quotas',
  title: 'Provider quotas shared across workers, and fairness between tenants',
  async run({ environment, quick }) {
    const size = quick ? sizes.quick : sizes.full;
    const fake = await FakeModelServer.start();
    const bundle = path.join(await environment.temporaryDirectory('bench-quotas-'), 'workflow-bundle.js');
    await writeFile(bundle, environment.bundleCode);
    try {
      const quotaRows = [await quotaRun('shared limit'), await quotaRun('own queue, no limit'), await quotaRun('alone')];
      // The limit set by the worker, in four partitions (the server's default) and in one, then through the API.
      const dispatchCases = [
        ...[sharedLimit, 2].flatMap((limit) => [4, 1].map((partitions) => ({ limit, partitions, setBy: 'worker' as const }))),
        { limit: sharedLimit, partitions: 4, setBy: 'api' as const },
      ];
      const dispatchRows = [];
      for (const dispatchCase of dispatchCases) {
        log(
          `quotas: a backlog of ${size.backlog} tasks at ${dispatchCase.limit}/s set by the ${dispatchCase.setBy}, ${dispatchCase.partitions} partition(s)`,
        );
        const directory = await environment.temporaryDirectory('bench-quotas-dispatch-');
        dispatchRows.push(await measureDispatchRate({ directory, tasks: size.backlog, ...dispatchCase }));
      }
      const fair = await tenantRun(['matching.enableFairness=true']);
      const fifo = await tenantRun([]);
      const quotaTable = markdownTable(
        [
          'two workers, provider at 10 req/s',
          'runs',
          '429s',
          'model requests',
          'requests/s, first to last',
          'busiest second',
          'wall time',
        ],
        quotaRows.map((row) => [
          row.label,
          String(size.quotaRuns),
          String(row.refused),
          String(row.requests),
          row.perSecond.toFixed(1),
          String(row.busiestSecond),
          formatMs(row.wallMs),
        ]),
      );
      const dispatchTable = markdownTable(
        [
          'limit',
          'set by',
          'task queue partitions',
          'backlog',
          'started in the first second',
          'per second after it',
          'all dispatched in',
        ],
        dispatchRows.map((row) => [
          `${row.limit}/s`,
          row.setBy === 'api' ? 'the API (task-queue config set)' : 'the worker',
          String(row.partitions),
          String(row.tasks),
          String(row.firstSecond),
          row.afterFirstSecond.toFixed(2),
          formatMs(row.spanMs),
        ]),
      );
      const fairnessTable = markdownTable(
        ['server', `tenant B's ${size.tenantB} runs: p95 to finish`, 'B median', `all ${size.tenantA + size.tenantB} runs`],
        [fair, fifo].map((row) => [row.label, formatMs(row.bP95), formatMs(row.bMedian), formatMs(row.allMs)]),
      );
      return {
        details: [
          `Shared quota (${size.quotaRuns} runs, one model call each, the fake provider answers in 50 ms):\n\n${quotaTable}`,
          `The server's dispatch of a backlog under a task queue rate limit (one worker, activities that return at once):\n\n${dispatchTable}`,
          `Fairness (tenant A queues ${size.tenantA} runs, then tenant B ${size.tenantB}; one worker, 2 activity slots, 100 ms model calls):\n\n${fairnessTable}`,
        ],
        targets: [],
      };
    } finally {
      await fake.close();
    }

    /** The bench's worker in this process: the fake provider, the bench's bundle and workspace, and `more`. */
    function agentWorker(server: OwnDevServer, taskQueue: string, more: Partial<AgentWorkerOptions>) {
      return createAgentWorker({
        connection: server.nativeConnection,
        namespace: 'default',
        taskQueue,
        env: fake.providerEnv,
        workspaceRoot: environment.workspace,
        workflowBundle: { codePath: bundle },
        ...more,
      });
    }

    /**
     * `own queue, no limit` is the control: the provider's model calls on their own queue, without a limit. It shows
     * what the extra queue costs (no eager activity execution, one more trip through the server per call) apart from
     * what the limit costs.
     */
    async function quotaRun(kind: 'shared limit' | 'own queue, no limit' | 'alone') {
      const label = {
        'shared limit': `shared limit (${sharedLimit}/s on the provider's queue)`,
        'own queue, no limit': "the provider's own queue, no limit",
        alone: 'per-worker 429 backoff alone',
      }[kind];
      const queue = { 'shared limit': { requestsPerSecond: sharedLimit }, 'own queue, no limit': {}, alone: undefined }[kind];
      log(`quotas: ${size.quotaRuns} runs on two workers, ${label}`);
      fake.reset();
      fake.rateLimit = new RequestRateLimit(providerLimit);
      fake.respondWith(() => ({ ...openaiReply({ content: 'ok' }), delayMs: 50 }) as ReturnType<typeof openaiReply>);
      const server = await ownServer(environment, projectSettings);
      const taskQueue = `bench-quotas-${randomUUID()}`;
      const workspace = environment.workspace;
      try {
        const local = await agentWorker(server, taskQueue, { ...(queue && { providerQueues: { openai: queue } }) });
        const other = await spawnWorker({
          address: server.address,
          taskQueue,
          identity: 'bench-worker-b',
          env: {
            ...fake.providerEnv,
            AGENT_WORKFLOW_BUNDLE: bundle,
            AGENT_WORKSPACE_ROOT: workspace,
            ...(queue && { AGENT_PROVIDER_QUEUES: queue.requestsPerSecond ? `openai:${queue.requestsPerSecond}` : 'openai' }),
          },
        });
        try {
          const started = performance.now();
          await local.runUntil(async () => {
            const handles = await Promise.all(
              Array.from({ length: size.quotaRuns }, (_, index) =>
                startAgent(server.client, { prompt: `task ${index}`, model, tools: [], workspace }, { taskQueue }),
              ),
            );
            await Promise.all(handles.map((handle) => handle.result()));
          });
          return {
            label,
            refused: fake.rateLimit.refused,
            requests: fake.requests.length,
            ...requestRates(fake.requests.map((request) => request.receivedAt)),
            wallMs: performance.now() - started,
          };
        } finally {
          await other.kill();
        }
      } finally {
        await server.close();
      }
    }

    async function tenantRun(dynamicConfig: string[]) {
      log(`quotas: tenants A ${size.tenantA} and B ${size.tenantB}, ${dynamicConfig.length ? 'fairness on' : 'server defaults'}`);
      fake.reset();
      fake.respondWith(() => ({ ...openaiReply({ content: 'ok' }), delayMs: 100 }) as ReturnType<typeof openaiReply>);
      // One partition: the dispatch order of a queue is the order of its one backlog.
      const server = await ownServer(environment, [...onePartition, ...dynamicConfig]);
      try {
        const taskQueue = `bench-fairness-${randomUUID()}`;
        const workspace = environment.workspace;
        const worker = await agentWorker(server, taskQueue, { overrides: { maxConcurrentActivityTaskExecutions: 2 } });
        const start = (tenant: string, index: number) =>
          startAgent(server.client, { prompt: `${tenant} ${index}`, model, tools: [], workspace }, { taskQueue, tenant });
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
        await server.close();
      }
    }
  },
};
