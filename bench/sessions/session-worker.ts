// The sessions benchmark's worker, in a process of its own so that its CPU and
// memory are its own: the production worker (createAgentWorker with its
// defaults, the real callModel and transcript store), plus the SDK's Prometheus
// metrics for the workflow cache's hits and misses. The parent forks it with an
// IPC channel; 'stats' asks for CPU time and RSS, 'stop' shuts it down.
//
// Environment: BENCH_SESSIONS_WORKER (`floor`: Temporal's floor session instead of ours, on a plain SDK worker),
// TEMPORAL_ADDRESS, AGENT_TASK_QUEUE, AGENT_WORKFLOW_BUNDLE, OPENAI_BASE_URL/OPENAI_API_KEY (the model server),
// AGENT_TRANSCRIPT_DIR,
// AGENT_PAYLOAD_DIR, AGENT_WORKSPACE_ROOT, BENCH_METRICS_PORT, and BENCH_WORKER_OPTIONS (JSON worker
// options laid over the defaults, to try other settings). A message { heapSnapshot: path } writes a V8 heap
// snapshot of this thread there (with debugMode the workflows run in this thread, so their memory is in it).
import v8, { writeHeapSnapshot } from 'node:v8';
import { Script } from 'node:vm';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createAgentWorker } from '../../worker/create-worker';
import { floorSessionActivities } from '../floor/session-activities';
import { loadConnectionSettings, taskQueue } from '../../worker/settings';

export interface WorkerStats {
  /** process.cpuUsage(): user and system microseconds since the process started, every thread included. */
  cpuMicros: number;
  rssBytes: number;
  /** This thread's V8 heap (with debugMode, the workflows' too), and memory outside it that V8 knows of. */
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  /** Calls into the workflow sandbox so far, by function (BENCH_COUNT_SANDBOX_CALLS only). */
  sandboxCalls: Record<string, number>;
}

/**
 * BENCH_COUNT_SANDBOX_CALLS=1 (with debugMode, so that the sandbox is in this thread): counts the SDK's calls into the
 * workflow sandbox by the function called. Each runs with the SDK's deadlock timeout, for which Node starts a watchdog
 * per call: ~0.1 ms of CPU each (bench/NOTES.md), so their number per message is a cost of its own. `(promises)` counts
 * the sandbox's promises, each a stack trace in the SDK's promise hook.
 */
const sandboxCalls = new Map<string, number>();
function countSandboxCalls(): void {
  const runInContext = Script.prototype.runInContext;
  Script.prototype.runInContext = function (this: Script, context, options) {
    const called = (context as { __temporal_args?: [unknown, string] } | undefined)?.__temporal_args?.[1] ?? '(other)';
    sandboxCalls.set(called, (sandboxCalls.get(called) ?? 0) + 1);
    return runInContext.call(this, context, options);
  };
  // The sandbox's promises, made by its own Promise (a vm context's, whose constructor is that context's Function): the SDK's hook takes a stack trace of each.
  v8.promiseHooks.createHook({
    init(promise) {
      // A host subclass (the openai client's APIPromise) has this realm's Function as its constructor's constructor.
      if ((promise.constructor as { constructor?: unknown }).constructor !== Function)
        sandboxCalls.set('(promises)', (sandboxCalls.get('(promises)') ?? 0) + 1);
    },
  });
}

async function main(): Promise<void> {
  if (process.env.BENCH_COUNT_SANDBOX_CALLS) countSandboxCalls();
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: {
      logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} },
      metrics: { prometheus: { bindAddress: `127.0.0.1:${process.env.BENCH_METRICS_PORT}` } },
    },
  });
  const overrides = JSON.parse(process.env.BENCH_WORKER_OPTIONS || '{}') as Partial<WorkerOptions>;
  const settings = loadConnectionSettings();
  const connection = await NativeConnection.connect(settings.connectionOptions);
  try {
    // BENCH_SESSIONS_WORKER=floor: a plain SDK worker for the floor session workflow (bench/floor/session-workflow.ts),
    // with the SDK's default options, so that its CPU and memory are Temporal's share of a message.
    const worker =
      process.env.BENCH_SESSIONS_WORKER === 'floor'
        ? await Worker.create({
            connection,
            namespace: settings.namespace,
            taskQueue: taskQueue(),
            workflowBundle: { codePath: process.env.AGENT_WORKFLOW_BUNDLE! },
            activities: floorSessionActivities(process.env.OPENAI_BASE_URL!),
            ...overrides,
          })
        : await createAgentWorker({ connection, namespace: settings.namespace, taskQueue: taskQueue(), overrides });
    process.on('message', (message) => {
      if (message === 'stats') {
        const cpu = process.cpuUsage();
        const memory = process.memoryUsage();
        const stats: WorkerStats = {
          cpuMicros: cpu.user + cpu.system,
          rssBytes: memory.rss,
          heapUsedBytes: memory.heapUsed,
          heapTotalBytes: memory.heapTotal,
          externalBytes: memory.external,
          sandboxCalls: Object.fromEntries(sandboxCalls),
        };
        process.send?.(stats);
      }
      if (message === 'stop') worker.shutdown();
      if (typeof message === 'object' && message !== null && 'heapSnapshot' in message) {
        global.gc?.();
        process.send?.({ written: writeHeapSnapshot(String(message.heapSnapshot)) });
      }
    });
    const running = worker.run();
    process.send?.('ready');
    await running;
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  // The SDK runtime's metrics server would keep the process alive after the worker stopped.
  main().then(
    () => process.exit(0),
    (error: Error) => {
      console.error(`session worker failed: ${error.stack ?? error.message}`);
      process.exit(1);
    },
  );
}
