import os from 'node:os';
import path from 'node:path';
import { ExternalStorage, type DataConverter } from '@temporalio/common';
import { LocalDirectoryDriver } from './local-directory-driver';

/** Payloads above this size go to external storage; history keeps a claim of a few hundred bytes. */
export const externalPayloadThreshold = 256 * 1024;

export function payloadDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGENT_PAYLOAD_DIR) return env.AGENT_PAYLOAD_DIR;
  const base = env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(base, 'durable-agent', 'payloads');
}

/**
 * The data converter every worker and client of this project uses: the default
 * JSON conversion, plus Temporal's external storage for large payloads, so a long
 * conversation carried across continue-as-new never meets the 2 MB payload limit.
 * Workers and clients must share AGENT_PAYLOAD_DIR (a shared file system in production).
 */
export function agentDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter {
  return {
    externalStorage: new ExternalStorage({
      drivers: [new LocalDirectoryDriver(payloadDirectory(env))],
      payloadSizeThreshold: externalPayloadThreshold,
    }),
  };
}
