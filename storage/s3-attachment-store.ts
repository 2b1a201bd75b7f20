import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { AttachmentCodec } from './attachment-codec';
import { ObjectAttachmentStore } from './attachment-store';

/**
 * Attachments as objects `<AGENT_S3_PREFIX>attachments/<ref>` in the payloads' bucket. Written once with a conditional
 * PUT (`If-None-Match: *`), as transcript chunks are (storage/transcript/s3-transcript-store.ts says why): an object
 * already there answers 412 and is left as it is, its name being a digest of its content.
 */
export class S3AttachmentStore extends ObjectAttachmentStore {
  constructor(
    private readonly client: S3Client,
    readonly bucket: string,
    readonly prefix: string,
    codec: AttachmentCodec,
  ) {
    super(codec, `s3://${bucket}/${prefix}attachments/`);
  }

  key(ref: string): string {
    return `${this.prefix}attachments/${ref}`;
  }

  // The conditional PUT is the check: one request for a new object.
  protected async has(): Promise<boolean> {
    return false;
  }

  protected async read(ref: string): Promise<Uint8Array | undefined> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(ref) }));
      return await object.Body?.transformToByteArray();
    } catch (error) {
      if ((error as { name?: string })?.name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  protected async write(ref: string, bytes: Uint8Array): Promise<void> {
    const put = () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.key(ref),
          Body: bytes,
          ContentType: 'application/octet-stream',
          IfNoneMatch: '*',
        }),
      );
    try {
      await put();
    } catch (error) {
      const name = (error as { name?: string })?.name;
      if (name === 'PreconditionFailed') return;
      if (name !== 'ConditionalRequestConflict') throw error;
      await put().catch((retryError: unknown) => {
        if ((retryError as { name?: string })?.name !== 'PreconditionFailed') throw retryError;
      });
    }
  }
}
