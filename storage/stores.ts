import path from 'node:path';
import type { StorageDriver } from '@temporalio/common';
import { AttachmentCodec } from './attachment-codec';
import { FileAttachmentStore, type AttachmentStore } from './attachment-store';
import { ChunkCodec } from './transcript/chunk-codec';
import { FileTranscriptStore, type TranscriptStore } from './transcript/transcript-store';
import { ConfigurationError } from '../core/errors';
import { s3PayloadDriverName } from './driver-names';
import { loadEncryptionKeys, type EncryptionKeyRing } from './encryption-keys';
import { LocalDirectoryDriver } from './local-directory-driver';
import { describeStorage, storageSettings, type StorageSettings } from './storage-settings';
import { UnconfiguredDriver } from './unconfigured-driver';

export interface AgentStores {
  settings: StorageSettings;
  /** Temporal external storage for payloads over the threshold: durable state, read by workers and clients. */
  payloadDriver: StorageDriver;
  /** Named as the other backend's driver: reading one of its claims fails with what to configure. */
  otherPayloadDriver: StorageDriver;
  /** The bytes of images and files sent with messages (docs/attachments.md): history carries their refs. */
  attachments: AttachmentStore;
  /** The model activity's transcripts: saves history bytes, never needed for correctness. */
  transcripts: TranscriptStore;
  /**
   * AGENT_ENCRYPTION_KEYS (or AGENT_ENCRYPTION_KEY_FILE): the payload codec encrypts
   * with them, and the transcript store seals its chunks with them, so that nothing
   * readable reaches Temporal or the bucket.
   */
  encryptionKeys: EncryptionKeyRing | undefined;
}

/**
 * The one place the storage backend is chosen, from the environment: the S3
 * bucket when AGENT_S3_BUCKET is set (workers on many machines, clients anywhere),
 * else local directories (one machine). Workers, the CLI and `agent show` all
 * build their stores here, so they read what the others wrote. Bad key material
 * throws here, at start-up.
 */
export function agentStores(env: NodeJS.ProcessEnv = process.env): AgentStores {
  const settings = storageSettings(env);
  const encryptionKeys = loadEncryptionKeys(env);
  const chunkCodec = new ChunkCodec(encryptionKeys);
  switch (settings.kind) {
    case 'local':
      return {
        settings,
        encryptionKeys,
        payloadDriver: new LocalDirectoryDriver(settings.payloadDirectory),
        otherPayloadDriver: new UnconfiguredDriver(
          s3PayloadDriverName,
          (claim) =>
            `this payload is stored in S3 (bucket ${claim.claimData.bucket}, key ${claim.claimData.key}) and this process has no ` +
            'AGENT_S3_BUCKET: configure it like the workers (AGENT_S3_BUCKET, AWS_ENDPOINT_URL, AWS_REGION, AWS credentials)',
        ),
        transcripts: new FileTranscriptStore(settings.transcriptDirectory, chunkCodec),
        attachments: new FileAttachmentStore(
          path.join(settings.payloadDirectory, 'attachments'),
          new AttachmentCodec(encryptionKeys),
        ),
      };
    case 's3': {
      // The AWS SDK takes a noticeable part of a second to load: only processes configured for S3 load it.
      const { s3Stores } = require('./s3-stores') as typeof import('./s3-stores');
      return s3Stores(settings, encryptionKeys, chunkCodec);
    }
    default: {
      const exhaustive: never = settings;
      throw new Error(`unknown storage settings ${JSON.stringify(exhaustive)}`);
    }
  }
}

/**
 * Fails loudly when the stores cannot be used: writes the empty transcript
 * (a chunk like any other: content-addressed, written once, harmless; sealed
 * when there are encryption keys) and reads it back through a second store with no cache. Without this, a wrong bucket,
 * endpoint or credentials would surface only with the first large payload, and
 * transcripts would quietly fall back to sending whole conversations. Needs only
 * the permissions the stores need anyway (s3:PutObject, s3:GetObject).
 */
export async function checkStores(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const settings = storageSettings(env);
  // Built outside the try: a configuration mistake (bad key material) is reported as itself.
  const [writer, reader] = [agentStores(env).transcripts, agentStores(env).transcripts];
  try {
    const id = await writer.append(undefined, []);
    if (!(await reader.load(id))) throw new Error('a transcript written a moment ago cannot be read back');
  } catch (error) {
    throw new ConfigurationError(`the stores (${describeStorage(settings)}) are not usable: ${errorText(error)}`);
  }
}

function errorText(error: unknown): string {
  const name = (error as Error)?.name;
  const message = (error as Error)?.message ?? String(error);
  return name && name !== 'Error' && !message.includes(name) ? `${name}: ${message}` : message;
}
