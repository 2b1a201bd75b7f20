import { ContentCodec, isContentName, isPlainContentName } from '../content-codec';
import type { EncryptionKeyRing } from '../encryption-keys';

export function isChunkId(id: string): boolean {
  return isContentName(id);
}

/** The name a chunk is stored under: `<id>.json` in the clear, `<id>.enc` when encrypted. */
export function chunkFileName(id: string): string {
  return isPlainContentName(id) ? `${id}.json` : `${id}.enc`;
}

/**
 * How a transcript chunk's JSON becomes the bytes a store keeps, and the id they are kept under: content-addressed
 * and, with encryption keys (the payload codec's), sealed and named by an HMAC of the JSON (content-codec.ts says
 * why), so a model activity retried after storing its chunk writes the same object again, not an orphan.
 */
export class ChunkCodec extends ContentCodec {
  constructor(keys: EncryptionKeyRing | undefined) {
    super(keys, 'durable-agent transcript chunk address', 'transcript chunk');
  }
}
