import os from 'node:os';
import path from 'node:path';
import { ExternalStorage, type DataConverter } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec';
import { loadEncryptionKeys } from './encryption-keys';
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
 * JSON conversion; AES-256-GCM encryption of every payload when
 * AGENT_ENCRYPTION_KEYS or AGENT_ENCRYPTION_KEY_FILE names keys; and Temporal's
 * external storage for large payloads, so a long conversation carried across
 * continue-as-new never meets the 2 MB payload limit. Workers and clients must
 * share AGENT_PAYLOAD_DIR (a shared file system in production) and the keys.
 *
 * The SDK runs the codecs before external storage on the way out and after it on
 * the way in, so what is stored externally is the encrypted payload, and history
 * holds only the claim (driver, key, size). Bad key material throws here, at start-up.
 */
export function agentDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter {
  return {
    payloadCodecs: [new EncryptionCodec(loadEncryptionKeys(env))],
    externalStorage: new ExternalStorage({
      drivers: [new LocalDirectoryDriver(payloadDirectory(env))],
      payloadSizeThreshold: externalPayloadThreshold,
    }),
  };
}
