import { ExternalStorage, type DataConverter } from '@temporalio/common';
import { agentStores } from './stores';

/** Payloads above this size go to external storage; history keeps a claim of a few hundred bytes. */
export const externalPayloadThreshold = 256 * 1024;

/**
 * The data converter every worker and client of this project uses: the default
 * JSON conversion, plus Temporal's external storage for large payloads, so a long
 * conversation carried across continue-as-new never meets the 2 MB payload limit.
 * Its driver is Temporal's official S3 driver when AGENT_S3_BUCKET is set, else
 * the local directory AGENT_PAYLOAD_DIR (storage/stores.ts): every worker and
 * client of a deployment must be configured alike.
 */
export function agentDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter {
  const { payloadDriver, otherPayloadDriver } = agentStores(env);
  return {
    externalStorage: new ExternalStorage({
      drivers: [payloadDriver, otherPayloadDriver],
      driverSelector: () => payloadDriver,
      payloadSizeThreshold: externalPayloadThreshold,
    }),
  };
}
