import { randomUUID } from 'node:crypto';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { FakeModelServer, openaiReply } from '../test/support/fake-model-server';
import type { Benchmark } from './support/benchmark';
import { driveSessions, startSessions, terminateSessions, type SentMessage } from './support/chat-load';
import type { BenchEnvironment } from './support/environment';
import { formatBytes, formatCount, formatMs, markdownTable, type TargetRow } from './support/format';
import { forkWorker } from './support/forked-worker';
import type { WorkerStats } from './sessions/session-worker';
import { fetchRunChain } from './support/history';
import { messageTimelines, type MessageTimeline } from './support/update-timeline';
import { log, quietLogger } from './support/log';
import { machineCpu } from './support/machine-cpu';
import { devServerPid, processCpuMs } from './support/process-cpu';
import { scrapeMetrics } from './support/prometheus';
import { percentile } from './support/stats';

const modelDelayMs = 1_000;
const targetSessions = 1_000;
const targetP95Ms = 100;
const targetIdleSessions = 5_000;
const targetIdleRssBytes = 2 * 1024 ** 3;
/** A session's next message follows the previous reply after a pause drawn from this range: a person reading and typing. */
const pauseMs: [number, number] = [5_000, 25_000];
/**
 * Idle sessions send one message each at a moment drawn uniformly from this window: a message every few minutes
 * per session, with the whole population's rate (5,000 over 4 minutes: 21 a second) about that of 330 busy sessions.
 * BENCH_IDLE_MINUTES sets another window.
 */
function idleWindowMs(env: NodeJS.ProcessEnv): [number, number] {
  const minutes = Number(env.BENCH_IDLE_MINUTES || 4);
  if (!(minutes > 0)) throw new Error(`BENCH_IDLE_MINUTES must be a number of minutes (got "${env.BENCH_IDLE_MINUTES}")`);
  return [0, minutes * 60_000];
}

/** How a size's sessions talk: busy (messages 5–25 s apart) or idle (one message in a window of a few minutes). */
type Load = 'busy' | 'idle';

/** Whose sessions: the agent's (createAgentWorker), or Temporal's floor (bench/floor/session-workflow.ts). */
type Subject = 'agent' | 'floor';

interface Measured {
  sessions: number;
  load: Load;
  subject: Subject;
  /** The worker's RSS before the sessions started, and once all of them waited for their first message. */
  baseRssBytes: number;
  idleRssBytes: number;
  answered: number;
  failures: string[];
  startingMs: number;
  windowMs: number;
  added: number[];
  /** CPU time over the messages' window: the worker's, the dev server's, and this process's (clients and the model). */
  workerCpuMs: number;
  serverCpuMs: number;
  benchCpuMs: number;
  peakRssBytes: number;
  cacheHits: number;
  cacheMisses: number;
  machineBusy: number;
  /** Where messages' time went, from a sample of the sessions' histories. */
  timelines: MessageTimeline[];
}

const sampledSessions = 50;

/** The journeys of the messages of up to 50 sessions spread over all of them. */
async function sampleTimelines(
  environment: BenchEnvironment,
  handles: WorkflowHandleWithFirstExecutionRunId[],
  sent: SentMessage[],
): Promise<MessageTimeline[]> {
  const step = Math.max(1, Math.floor(handles.length / sampledSessions));
  const sample = handles.filter((_, index) => index % step === 0).slice(0, sampledSessions);
  const timelines = await Promise.all(
    sample.map(async (handle) => {
      const runs = await fetchRunChain(environment.client, handle.workflowId, handle.firstExecutionRunId);
      return messageTimelines(
        runs,
        sent.filter((message) => message.workflowId === handle.workflowId),
        modelDelayMs,
      );
    }),
  );
  return timelines.flat();
}

/**
 * Busy sessions: BENCH_SESSIONS=200,2000 measures other counts (to size a worker); otherwise 100, 500 and 1,000 (20
 * and 100 with --quick). Idle sessions: BENCH_IDLE_SESSIONS, otherwise 5,000 (300 with --quick); "none" for none.
 */
export function sessionSizes(env: NodeJS.ProcessEnv, quick: boolean): { sessions: number; load: Load }[] {
  const busy = counts('BENCH_SESSIONS', env.BENCH_SESSIONS, quick ? [20, 100] : [100, 500, 1000]);
  const idle = counts('BENCH_IDLE_SESSIONS', env.BENCH_IDLE_SESSIONS, quick ? [300] : [targetIdleSessions]);
  return [
    ...busy.map((sessions) => ({ sessions, load: 'busy' as const })),
    ...idle.map((sessions) => ({ sessions, load: 'idle' as const })),
  ];
}

function counts(name: string, listed: string | undefined, defaults: number[]): number[] {
  if (!listed) return defaults;
  if (listed === 'none') return [];
  const parsed = listed.split(',').map(Number);
  if (parsed.some((count) => !Number.isInteger(count) || count < 1))
    throw new Error(`${name} must list session counts, e.g. 200,2000, or be "none" (got "${listed}")`);
  return parsed;
}

/**
 * N chat sessions at once against one worker (the production worker in a
 * process of its own), each sending messages as sendMessage updates, with a
 * model that takes 1 s per call. Added latency = reply time − 1 s.
 */
export const sessions: Benchmark = {
  name: 'sessions',
  title: 'Concurrent chat sessions on one worker',
  async run({ environment, quick }) {
    const sizes = sessionSizes(process.env, quick);
    const busyMessages = quick ? 2 : 4;
    // The model lives behind HTTP: the worker makes a real Chat Completions call through its openai
    // provider (its CPU and memory count in the worker's), and the 1 s wait is the server's, not an activity's.
    const model = await FakeModelServer.start();
    model.respondWith(() => {
      model.requests.length = 0;
      return { ...openaiReply({ content: 'an answer' }), delayMs: modelDelayMs };
    });
    try {
      const measured: Measured[] = [];
      // Each busy size is measured twice, ours then Temporal's floor under the same load: the floor's row is the part
      // of a message's cost (and of its latency under load) that no agent code could take away.
      for (const { sessions: count, load } of sizes)
        for (const subject of load === 'busy' ? (['agent', 'floor'] as const) : (['agent'] as const))
          measured.push(
            await measure(
              environment,
              model.url,
              count,
              load,
              subject,
              load === 'busy'
                ? { messagesPerSession: busyMessages, pauseMs }
                : { messagesPerSession: 1, pauseMs: idleWindowMs(process.env) },
            ),
          );
      return report(measured, busyMessages);
    } finally {
      await model.close();
    }
  },
};

async function measure(
  environment: BenchEnvironment,
  modelUrl: string,
  count: number,
  load: Load,
  subject: Subject,
  talk: { messagesPerSession: number; pauseMs: [number, number] },
): Promise<Measured> {
  const { messagesPerSession } = talk;
  const server = await environment.server('project');
  // BENCH_SESSIONS_BUNDLE=<file> runs the worker on another workflow bundle, to compare two builds of the workflows.
  let bundlePath = subject === 'agent' ? process.env.BENCH_SESSIONS_BUNDLE : undefined;
  if (!bundlePath) {
    bundlePath = path.join(await environment.temporaryDirectory('bench-bundle-'), 'workflow-bundle.js');
    await writeFile(bundlePath, subject === 'agent' ? environment.bundleCode : await floorSessionBundle());
  }
  const taskQueue = `bench-sessions-${randomUUID()}`;
  log(
    `sessions: ${count} ${load} ${subject === 'floor' ? "floor (Temporal's) " : ''}sessions on one worker, ${messagesPerSession} messages each...`,
  );
  const snapshots = process.env.BENCH_WORKER_HEAP_SNAPSHOT;
  const worker = await forkWorker({
    BENCH_SESSIONS_WORKER: subject,
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_NAMESPACE: server.namespace,
    AGENT_TASK_QUEUE: taskQueue,
    AGENT_WORKFLOW_BUNDLE: bundlePath,
    AGENT_TRANSCRIPT_DIR: process.env.AGENT_TRANSCRIPT_DIR,
    AGENT_PAYLOAD_DIR: process.env.AGENT_PAYLOAD_DIR,
    // The sessions' workspace is the benchmark's temporary directory, which the worker must accept.
    AGENT_WORKSPACE_ROOT: environment.workspace,
    OPENAI_BASE_URL: `${modelUrl}/v1`,
    OPENAI_API_KEY: 'sk-bench',
    // To measure the workflow cache sized from a memory budget (worker/settings.ts).
    AGENT_WORKER_MEMORY_MB: process.env.AGENT_WORKER_MEMORY_MB,
    BENCH_WORKER_OPTIONS: process.env.BENCH_WORKER_OPTIONS,
    BENCH_WORKER_CPU_PROFILE: process.env.BENCH_WORKER_CPU_PROFILE,
    BENCH_WORKER_HEAP_SNAPSHOT: snapshots,
    BENCH_COUNT_SANDBOX_CALLS: process.env.BENCH_COUNT_SANDBOX_CALLS,
  });
  // BENCH_WORKER_HEAP_SNAPSHOT=<dir> (with BENCH_WORKER_OPTIONS='{"debugMode":true}', so that the workflows live in the
  // worker's main thread): snapshots before the sessions, once they all wait, and after the messages, to compare.
  const snapshot = async (moment: string) => {
    if (snapshots) await worker.heapSnapshot(path.join(snapshots, `${load}-${count}-${moment}.heapsnapshot`));
  };
  try {
    await snapshot('0-before');
    const base = await worker.stats();
    const baseRssBytes = base.rssBytes;
    const { handles, startingMs } = await startSessions({
      client: environment.client,
      taskQueue,
      workspace: environment.workspace,
      model: 'openai:sessions-1s',
      sessions: count,
      messagesPerSession,
      pauseMs,
      startConcurrency: 50,
      idPrefix: `bench-session-${taskQueue.slice(-8)}`,
      floor: subject === 'floor',
    });
    log(`  ${count} sessions started in ${formatMs(startingMs)}; sending messages...`);
    const idle = await worker.stats();
    const idleRssBytes = idle.rssBytes;
    const perSession = (bytes: (stats: typeof idle) => number) => formatBytes((bytes(idle) - bytes(base)) / count);
    log(
      `  per waiting session: RSS ${perSession((stats) => stats.rssBytes)}; the worker's main thread's V8 heap ` +
        `${perSession((stats) => stats.heapUsedBytes)} used, ${perSession((stats) => stats.heapTotalBytes)} reserved, ` +
        `${perSession((stats) => stats.externalBytes)} external (the workflows' heap is in a thread of its own unless debugMode)`,
    );
    await snapshot('1-idle');
    const serverPid = await devServerPid(server.address.split(':').at(-1)!);
    const metricsBefore = await scrapeMetrics(worker.metricsUrl);
    const statsBefore = await worker.stats();
    const machineBefore = machineCpu();
    const serverCpuBefore = serverPid ? await processCpuMs(serverPid) : undefined;
    const benchCpuBefore = process.cpuUsage();
    let peakRssBytes = statsBefore.rssBytes;
    const sampler = setInterval(() => {
      void worker.stats().then((stats) => (peakRssBytes = Math.max(peakRssBytes, stats.rssBytes)));
    }, 1_000);
    const talked = await driveSessions(handles, { ...talk, floor: subject === 'floor' }).finally(() => clearInterval(sampler));
    const statsAfter = await worker.stats();
    const machineAfter = machineCpu();
    const serverCpuAfter = serverPid ? await processCpuMs(serverPid) : undefined;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const metricsAfter = await scrapeMetrics(worker.metricsUrl);
    const delta = (name: string) => (metricsAfter.get(name) ?? 0) - (metricsBefore.get(name) ?? 0);
    log(
      `  ${talked.replyMs.length} replies, ${talked.failures.length} failures in ${formatMs(talked.windowMs)}; ending the sessions...`,
    );
    for (const failure of talked.failures.slice(0, 5)) log(`    ${failure}`);
    if (process.env.BENCH_COUNT_SANDBOX_CALLS) {
      const per = (after: WorkerStats, before: WorkerStats, divisor: number) =>
        Object.entries(after.sandboxCalls)
          .map(([called, calls]) => `${called} ${((calls - (before.sandboxCalls[called] ?? 0)) / divisor).toFixed(1)}`)
          .join(', ');
      log(`  calls into the workflow sandbox per session started: ${per(idle, base, count)}`);
      log(`  calls into the workflow sandbox per message: ${per(statsAfter, statsBefore, Math.max(1, talked.replyMs.length))}`);
    }
    const timelines = await sampleTimelines(environment, handles, talked.messages);
    await snapshot('2-after');
    await terminateSessions(handles, 50);
    return {
      sessions: count,
      load,
      subject,
      baseRssBytes,
      idleRssBytes,
      answered: talked.replyMs.length,
      failures: talked.failures,
      startingMs,
      windowMs: talked.windowMs,
      added: talked.replyMs.map((ms) => ms - modelDelayMs),
      workerCpuMs: (statsAfter.cpuMicros - statsBefore.cpuMicros) / 1000,
      serverCpuMs: serverCpuAfter !== undefined && serverCpuBefore !== undefined ? serverCpuAfter - serverCpuBefore : Number.NaN,
      benchCpuMs: (benchCpu.user + benchCpu.system) / 1000,
      peakRssBytes: Math.max(peakRssBytes, statsAfter.rssBytes),
      cacheHits: delta('temporal_sticky_cache_hit'),
      cacheMisses: delta('temporal_sticky_cache_miss'),
      machineBusy: machineAfter.busyFractionSince(machineBefore),
      timelines,
    };
  } finally {
    await worker.stop();
  }
}

function report(measured: Measured[], messagesPerSession: number) {
  const rows = measured.map((result) => [
    `${formatCount(result.sessions)} ${result.load}${result.subject === 'floor' ? ", Temporal's floor" : ''}`,
    `${formatCount(result.answered)}${result.failures.length ? ` (${result.failures.length} failed)` : ''}`,
    `${(result.answered / (result.windowMs / 1000)).toFixed(1)}/s`,
    formatMs(percentile(result.added, 50)),
    formatMs(percentile(result.added, 95)),
    formatMs(percentile(result.added, 99)),
    `${(result.workerCpuMs / result.windowMs).toFixed(2)} cores`,
    perMessage(result, result.workerCpuMs),
    perMessage(result, result.serverCpuMs),
    perMessage(result, result.benchCpuMs),
    formatBytes(result.peakRssBytes),
    formatBytes(result.baseRssBytes),
    formatBytes((result.idleRssBytes - result.baseRssBytes) / result.sessions),
    cacheRate(result),
    `${Math.round(result.machineBusy * 100)}% (${Math.round(otherWork(result) * 100)}% other work)`,
    formatMs(result.startingMs),
  ]);
  const segments = [
    ['sent → update accepted (delivered, first workflow task)', 'accepted'],
    ['accepted → callModel started', 'toModelCall'],
    ["callModel beyond the model's 1 s (openai client, transcript store)", 'modelCallOverhead'],
    ['callModel done → update completed (second workflow task)', 'toUpdateCompleted'],
    ['update completed → reply at the client', 'toClient'],
  ] as const;
  const segmentRows = segments.map(([label, key]) => [
    label,
    ...measured.flatMap((result) => {
      // (the floor's rows too: its activity is named callModel, and its messages take the same two workflow tasks)
      const values = result.timelines.map((timeline) => timeline[key]);
      return [formatMs(percentile(values, 50)), formatMs(percentile(values, 95))];
    }),
  ]);
  const busy = measured.filter((result) => result.load === 'busy' && result.subject === 'agent');
  const idle = measured.filter((result) => result.load === 'idle');
  const qualifying = busy.filter(
    (result) => result.sessions >= targetSessions && result.failures.length === 0 && percentile(result.added, 95) < targetP95Ms,
  );
  const reached = busy.some((result) => result.sessions >= targetSessions);
  const idleReached = idle.some((result) => result.sessions >= targetIdleSessions);
  const targets: TargetRow[] = [
    {
      measure: 'concurrent chat sessions on one worker (1 s model)',
      result:
        busy
          .map(
            (result) =>
              `${formatCount(result.sessions)}: p95 +${formatMs(percentile(result.added, 95))}` +
              (result.failures.length ? `, ${result.failures.length} failed` : ''),
          )
          .join('; ') + (reached ? '' : ` (not measured at ${targetSessions} sessions or more)`),
      target: `≥ ${targetSessions} sessions with p95 added latency < ${targetP95Ms} ms`,
      pass: qualifying.length > 0,
    },
    {
      measure: `idle chat sessions on one worker (one message each in ${idleWindowMs(process.env)[1] / 60_000} minutes)`,
      result:
        idle
          .map(
            (result) =>
              `${formatCount(result.sessions)}: peak RSS ${formatBytes(result.peakRssBytes)}, p95 +${formatMs(percentile(result.added, 95))}` +
              (result.failures.length ? `, ${result.failures.length} failed` : ''),
          )
          .join('; ') + (idleReached ? '' : ` (not measured at ${formatCount(targetIdleSessions)} idle sessions or more)`),
      target: `≥ ${formatCount(targetIdleSessions)} idle sessions under ${formatBytes(targetIdleRssBytes)} RSS`,
      pass: idle.some(
        (result) =>
          result.sessions >= targetIdleSessions && result.failures.length === 0 && result.peakRssBytes < targetIdleRssBytes,
      ),
    },
  ];
  return {
    details: [
      markdownTable(
        [
          'sessions',
          'messages answered',
          'messages per second',
          'added latency: p50',
          'p95',
          'p99',
          'worker CPU (average)',
          'CPU per message: worker',
          'dev server',
          'benchmark (clients, model)',
          'worker RSS (peak)',
          'RSS before the sessions',
          'RSS per waiting session',
          'workflow cache hit rate',
          'machine CPU busy',
          'starting them (until all wait for messages)',
        ],
        rows,
      ),
      `Each busy session sends ${messagesPerSession} messages, each ${pauseMs[0] / 1000}–${pauseMs[1] / 1000} s (uniform) after the previous reply ` +
        `(the first one too, so the sessions do not all speak at once); each idle session sends one message, at a moment drawn ` +
        `uniformly from the ${idleWindowMs(process.env)[1] / 60_000} minutes after all have started. RSS per waiting session = (RSS once every ` +
        `session waits for its first message − RSS before they started) / sessions. The model answers each call after ${modelDelayMs / 1000} s: a local ` +
        'HTTP server speaking Chat Completions, called by the worker through its real openai provider. Added latency = time from the ' +
        'sendMessage update to its reply, minus 1 s. The worker is `createAgentWorker` with its defaults, alone in its own process; CPU is ' +
        'its process time over the time the messages took (1.00 = one core busy), the cache hit rate comes from its ' +
        '`temporal_sticky_cache_hit`/`_miss` metrics over the same time, and the machine figure covers every process (dev server, ' +
        'this benchmark, other work on the machine).',
      markdownTable(
        [
          `where a message's time goes (${sampledSessions} sessions' histories)`,
          ...measured.flatMap((result) => [
            `${formatCount(result.sessions)}${result.subject === 'floor' ? ' floor' : ''}: p50`,
            'p95',
          ]),
        ],
        segmentRows,
      ),
    ],
    targets,
  };
}

let floorBundle: Promise<string> | undefined;

/** The floor session workflow's bundle, built once per benchmark run. */
function floorSessionBundle(): Promise<string> {
  floorBundle ??= bundleWorkflowCode({
    workflowsPath: require.resolve('./floor/session-workflow'),
    logger: quietLogger,
  }).then((bundle) => bundle.code);
  return floorBundle;
}

/** The share of the machine's CPU that neither the worker, the dev server nor this benchmark used: other people's work. */
function otherWork(result: Measured): number {
  const ours = result.workerCpuMs + (Number.isNaN(result.serverCpuMs) ? 0 : result.serverCpuMs) + result.benchCpuMs;
  return Math.max(0, result.machineBusy - ours / (result.windowMs * os.cpus().length));
}

function perMessage(result: Measured, cpuMs: number): string {
  return Number.isNaN(cpuMs) ? '–' : formatMs(cpuMs / Math.max(1, result.answered));
}

function cacheRate(result: Measured): string {
  const total = result.cacheHits + result.cacheMisses;
  if (total === 0) return '–';
  return `${((result.cacheHits / total) * 100).toFixed(1)}% (${formatCount(result.cacheMisses)} misses)`;
}
