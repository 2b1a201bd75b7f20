import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
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
