import { ExternalStorage, type DataConverter } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec';
import { agentStores } from './stores';

/** Payloads above this size go to external storage; history keeps a claim of a few hundred bytes. */
export const externalPayloadThreshold = 256 * 1024;

/**
 * The data converter every worker and client of this project uses: the default
 * JSON conversion; AES-256-GCM encryption of every payload when
 * AGENT_ENCRYPTION_KEYS or AGENT_ENCRYPTION_KEY_FILE names keys; and Temporal's
 * external storage for large payloads, so a long conversation carried across
 * continue-as-new never meets the 2 MB payload limit. The storage driver is
 * Temporal's official S3 driver when AGENT_S3_BUCKET is set, else the local
 * directory AGENT_PAYLOAD_DIR (storage/stores.ts): every worker and client of a
 * deployment must be configured alike, keys included.
 *
 * The SDK runs the codecs before external storage on the way out and after it on
 * the way in, so what is stored externally is the encrypted payload, and history
 * holds only the claim (driver, key, size). The transcript store seals its chunks
 * with the same keys (storage/stores.ts). Bad key material throws here, at start-up.
 */
export function agentDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter {
  const { payloadDriver, otherPayloadDriver, encryptionKeys } = agentStores(env);
  return {
    payloadCodecs: [new EncryptionCodec(encryptionKeys)],
    externalStorage: new ExternalStorage({
      drivers: [payloadDriver, otherPayloadDriver],
      driverSelector: () => payloadDriver,
      payloadSizeThreshold: externalPayloadThreshold,
    }),
  };
}
