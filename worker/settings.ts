import { loadClientConnectConfig } from '@temporalio/envconfig';
import { getHeapStatistics } from 'node:v8';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { ConfigurationError } from '../core/errors';
import { defaultTaskQueue } from '../core/limits';

export interface ConnectionSettings {
  connectionOptions: NativeConnectionOptions;
  namespace: string;
  /** True when an address came from TEMPORAL_ADDRESS or a config profile rather than the default. */
  addressConfigured: boolean;
}

export const defaultAddress = 'localhost:7233';

/**
 * Connection settings as the Temporal CLI reads them (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS settings, TEMPORAL_PROFILE and the
 * config file), with the local defaults filled in.
 */
export function loadConnectionSettings(): ConnectionSettings {
  const config = loadClientConnectConfig();
  const address = config.connectionOptions.address;
  return {
    connectionOptions: { ...config.connectionOptions, address: address || defaultAddress },
    namespace: config.namespace || 'default',
    addressConfigured: Boolean(address),
  };
}

export function taskQueue(env: NodeJS.ProcessEnv = process.env): string {
  return env.AGENT_TASK_QUEUE || defaultTaskQueue;
}

/** The directory every workspace of this worker's runs must lie inside: AGENT_WORKSPACE_ROOT, else `fallback`. */
export function defaultWorkspaceRoot(env: NodeJS.ProcessEnv = process.env, fallback = process.cwd()): string {
  return env.AGENT_WORKSPACE_ROOT || fallback;
}

/** What a worker holds before it caches any workflow, and what each cached session adds (bench/NOTES.md, "Sessions per worker"). */
export const workerBaseMemoryMb = 300;
export const memoryPerCachedSessionMb = 0.5;
/** Of that, what a cached session keeps in the workflow thread's V8 heap (about 0.2 MB measured), with a margin. */
const heapPerCachedSessionMb = 0.25;

/**
 * How many workflows the worker keeps cached when AGENT_WORKER_MEMORY_MB says how much memory it may use: as many
 * sessions as fit beside the worker's base, so that a container's limit, not Node's heap size, decides. Never more
 * than the V8 heap (`heapLimitMb`, Node's --max-old-space-size) can hold, or a large budget would end in an
 * out-of-memory crash instead. Undefined without the setting: the SDK's default then, about 600 per GB of heap.
 */
export function workflowCacheSize(
  env: NodeJS.ProcessEnv = process.env,
  heapLimitMb = getHeapStatistics().heap_size_limit / 1024 ** 2,
): number | undefined {
  const setting = env.AGENT_WORKER_MEMORY_MB;
  if (setting === undefined || setting === '') return undefined;
  const megabytes = Number(setting);
  if (!Number.isFinite(megabytes) || megabytes <= 0)
    throw new ConfigurationError(`AGENT_WORKER_MEMORY_MB must be the worker's memory in megabytes, e.g. 2048 (got "${setting}")`);
  const fitInMemory = Math.floor((megabytes - workerBaseMemoryMb) / memoryPerCachedSessionMb);
  // The SDK needs at least 2 (one workflow task in flight and the next); fewer means the budget does not hold the worker.
  if (fitInMemory < 2)
    throw new ConfigurationError(
      `AGENT_WORKER_MEMORY_MB=${setting} leaves no room for cached sessions: a worker needs about ${workerBaseMemoryMb} MB before its first`,
    );
  const fitInHeap = Math.floor((heapLimitMb - workerBaseMemoryMb) / heapPerCachedSessionMb);
  return Math.max(2, Math.min(fitInMemory, fitInHeap));
}
