import type { ChunkCodec } from './transcript/chunk-codec';
import { S3TranscriptStore } from './transcript/s3-transcript-store';
import { localDirectoryDriverName } from './driver-names';
import type { EncryptionKeyRing } from './encryption-keys';
import { AttachmentCodec } from './attachment-codec';
import { S3AttachmentStore } from './s3-attachment-store';
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
  quietNodeVersionWarning();
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
    attachments: new S3AttachmentStore(client, settings.bucket, settings.prefix, new AttachmentCodec(encryptionKeys)),
  };
}

/**
 * On Node 20, the AWS SDK's first client prints a NodeVersionSupportWarning on
 * stderr: SDK versions published after the first week of January 2027 will need
 * Node 22. It is about versions this project does not install (package-lock.json
 * pins the SDK, and CI tests that pin on Node 20 and 24; docs/getting-started.md),
 * and it lands in the middle of every bucket command's output. The SDK's own
 * switch turns it off; a value the user set is left alone. From Node 22 on the
 * SDK prints nothing anyway. Support for Node 20 ends with the first SDK update
 * that needs 22.
 */
function quietNodeVersionWarning(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}
