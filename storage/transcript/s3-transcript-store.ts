import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { ChunkCodec, chunkFileName } from './chunk-codec';
import { ChunkStore } from './transcript-store';

/**
 * Chunks as objects in an S3 bucket, `<prefix>transcripts/<sha256>.json`, or
 * `<prefix>transcripts/<hmac>.<keyId>.enc` with encryption keys (chunk-codec.ts),
 * so workers on any number of machines share one store.
 *
 * Written once with a conditional PUT (`If-None-Match: *`) rather than a HEAD
 * check before the PUT: one request instead of two for a new chunk (nearly
 * every chunk is new), and no window between check and write in which two
 * workers both decide to write. A chunk already there answers 412 and is left
 * as it is, which is right because its key is a digest of its content. A
 * server that ignores the header rewrites the same bytes, which is harmless.
 */
export class S3TranscriptStore extends ChunkStore {
  constructor(
    private readonly client: S3Client,
    readonly bucket: string,
    /** '' or a prefix ending in '/' (AGENT_S3_PREFIX). */
    readonly prefix: string,
    codec?: ChunkCodec,
  ) {
    super(codec);
  }

  key(id: string): string {
    return `${this.prefix}transcripts/${chunkFileName(id)}`;
  }

  protected async readChunk(id: string): Promise<Uint8Array | undefined> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(id) }));
      return await object.Body?.transformToByteArray();
    } catch (error) {
      if (errorName(error) === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  protected async writeChunk(id: string, bytes: Uint8Array): Promise<void> {
    const put = () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.key(id),
          Body: bytes,
          ContentType: chunkFileName(id).endsWith('.json') ? 'application/json' : 'application/octet-stream',
          IfNoneMatch: '*',
        }),
      );
    try {
      await put();
    } catch (error) {
      if (errorName(error) === 'PreconditionFailed') return;
      // S3 answers 409 when another conditional write of the same key is in flight: try once more.
      if (errorName(error) !== 'ConditionalRequestConflict') throw error;
      await put().catch((retryError: unknown) => {
        if (errorName(retryError) !== 'PreconditionFailed') throw retryError;
      });
    }
  }
}

function errorName(error: unknown): string | undefined {
  return (error as { name?: string })?.name;
}
