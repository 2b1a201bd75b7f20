import type { ChunkCodec } from '../activities/transcript/chunk-codec';
import { S3TranscriptStore } from '../activities/transcript/s3-transcript-store';
import { localDirectoryDriverName } from './driver-names';
import type { EncryptionKeyRing } from './encryption-keys';
import { S3PayloadDriver } from './s3-payload-driver';
import { createS3Client } from './s3-client';
import type { S3StorageSettings } from './storage-settings';
import type { AgentStores } from './stores';
import { UnconfiguredDriver } from './unconfigured-driver';

/** Both stores in one bucket, through one S3 client. Loaded only by processes configured for S3 (stores.ts). */
export function s3Stores(
  settings: S3StorageSettings,
  encryptionKeys: EncryptionKeyRing | undefined,
  chunkCodec: ChunkCodec,
): AgentStores {
  const client = createS3Client(settings);
  return {
    settings,
    encryptionKeys,
    payloadDriver: new S3PayloadDriver(client, settings.bucket, settings.prefix),
    otherPayloadDriver: new UnconfiguredDriver(
      localDirectoryDriverName,
      (claim) =>
        `this payload (${claim.claimData.key}) was stored in a local directory by a process without AGENT_S3_BUCKET: ` +
        'read it on that machine with its AGENT_PAYLOAD_DIR',
    ),
    transcripts: new S3TranscriptStore(client, settings.bucket, settings.prefix, chunkCodec),
  };
}
