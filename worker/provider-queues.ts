import { Worker, type CompiledWorkerOptions, type WorkerOptions } from '@temporalio/worker';
import { ConfigurationError } from '../core/errors';

/**
 * A provider's own task queue for its model calls. A provider's rate limit belongs to the account, not to one
 * worker: with `requestsPerSecond`, every worker that polls this queue sets the limit (the SDK's
 * `maxTaskQueueActivitiesPerSecond`) and the Temporal server enforces it across all of them, so ten workers together
 * start at most that many model calls a second. The model activity's own 429 handling (Retry-After, Temporal's
 * retries) still applies to whatever gets through.
 */
export interface ProviderQueue {
  /** The task queue's name (default: `<the worker's task queue>-model-<provider>`). */
  taskQueue?: string;
  /** Model calls the server dispatches from this queue per second, across every worker (default: no limit). */
  requestsPerSecond?: number;
}

/** By provider name (`openai`, `anthropic`, one of your own): the providers whose model calls get a queue of their own. */
export type ProviderQueues = Record<string, ProviderQueue>;

/** The environment variable `npm run worker` and the CLI's own worker read: `openai:10,anthropic:4` (provider[:requests per second]). */
export const providerQueuesVariable = 'AGENT_PROVIDER_QUEUES';

export function defaultProviderQueueName(workerTaskQueue: string, provider: string): string {
  return `${workerTaskQueue}-model-${provider}`;
}

/** AGENT_PROVIDER_QUEUES as ProviderQueues; none when unset. A malformed entry throws, naming it. */
export function providerQueuesFromEnv(env: NodeJS.ProcessEnv): ProviderQueues | undefined {
  const text = env[providerQueuesVariable]?.trim();
  if (!text) return undefined;
  const queues: ProviderQueues = {};
  for (const entry of text.split(',').map((part) => part.trim())) {
    const match = /^([a-z][a-z0-9-]*)(?::([^:]+))?$/.exec(entry);
    if (!match) {
      throw new ConfigurationError(
        `${providerQueuesVariable}: "${entry}" is not provider[:requests per second] (for example openai:10,anthropic:4)`,
      );
    }
    const [, provider, rate] = match;
    queues[provider] = rate === undefined ? {} : { requestsPerSecond: Number(rate) };
  }
  return checkProviderQueues(queues, providerQueuesVariable);
}

/** Refuses what the server would take silently or not at all: a rate that is not a positive number, an empty name. */
export function checkProviderQueues(queues: ProviderQueues, where = 'providerQueues'): ProviderQueues {
  for (const [provider, queue] of Object.entries(queues)) {
    const rate = queue.requestsPerSecond;
    if (rate !== undefined && !(Number.isFinite(rate) && rate > 0)) {
      throw new ConfigurationError(
        `${where}: the requests per second of "${provider}" must be a number above 0, got ${String(rate)}`,
      );
    }
    if (queue.taskQueue !== undefined && queue.taskQueue.trim() === '') {
      throw new ConfigurationError(`${where}: the task queue of "${provider}" must not be empty`);
    }
  }
  return queues;
}

/** Provider name to task queue name, as prepareRun records it for the workflow. */
export function providerQueueNames(queues: ProviderQueues, workerTaskQueue: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(queues).map(([provider, queue]) => [
      provider,
      queue.taskQueue ?? defaultProviderQueueName(workerTaskQueue, provider),
    ]),
  );
}

/**
 * The options of the activity worker that polls one provider's queue: the main worker's connection, namespace,
 * identity, data converter, activity interceptors (tracing) and Worker Versioning, the model activity only, and the
 * queue's rate limit. Versioning matters: a versioned worker registers each queue it polls in its build's deployment
 * version, and the server sends a pinned run's activity on such a queue only to that build's workers. Unversioned,
 * the provider's queue stays outside every version, and during a deploy a run's model calls could go to any build.
 */
export function providerQueueWorkerOptions(
  main: CompiledWorkerOptions,
  taskQueue: string,
  queue: ProviderQueue,
  callModel: NonNullable<WorkerOptions['activities']>,
): Omit<WorkerOptions, 'connection'> {
  return {
    namespace: main.namespace,
    taskQueue,
    activities: callModel,
    identity: main.identity,
    dataConverter: main.dataConverter,
    interceptors: { activity: main.interceptors.activity },
    maxHeartbeatThrottleInterval: main.maxHeartbeatThrottleIntervalMs,
    ...(main.workerDeploymentOptions && { workerDeploymentOptions: main.workerDeploymentOptions }),
    ...(queue.requestsPerSecond !== undefined && { maxTaskQueueActivitiesPerSecond: queue.requestsPerSecond }),
  };
}

/**
 * Runs, beside `worker`, one activity worker per provider queue (providerQueueWorkerOptions), polling only that
 * queue, with its rate limit. They stop when `run` (the main worker's run) ends, and a failed one stops the main worker.
 */
export async function withProviderQueueWorkers(worker: Worker, queues: ProviderQueues, run: () => Promise<void>): Promise<void> {
  const connection = worker.connection;
  const callModel = worker.options.activities.get('callModel');
  if (!connection || !callModel) return run();
  const names = providerQueueNames(queues, worker.options.taskQueue);
  const queueWorkers = await Promise.all(
    Object.entries(queues).map(([provider, queue]) =>
      Worker.create({
        connection,
        ...providerQueueWorkerOptions(worker.options, names[provider], queue, { callModel }),
      }),
    ),
  );
  const running = queueWorkers.map((queueWorker) =>
    queueWorker.run().catch((error: unknown) => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      throw error;
    }),
  );
  try {
    await run();
  } finally {
    for (const queueWorker of queueWorkers) if (queueWorker.getState() === 'RUNNING') queueWorker.shutdown();
    await Promise.allSettled(running);
  }
  // A queue worker that failed is why the main worker stopped: say so.
  for (const outcome of await Promise.allSettled(running)) if (outcome.status === 'rejected') throw outcome.reason;
}
