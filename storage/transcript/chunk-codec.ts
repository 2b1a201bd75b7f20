import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { seal, unseal } from '../aes-gcm';
import type { EncryptionKey, EncryptionKeyRing } from '../encryption-keys';

/** A chunk written without encryption: its id is the SHA-256 of its JSON. */
const plainIdPattern = /^[0-9a-f]{64}$/;
/** A chunk written under encryption key `keyId`: `<HMAC-SHA-256 of its JSON>.<keyId>` (key ids: encryption-keys.ts). */
const sealedIdPattern = /^([0-9a-f]{64})\.([A-Za-z0-9._-]{1,64})$/;

const addressKeyInfo = 'durable-agent transcript chunk address';

export function isChunkId(id: string): boolean {
  return plainIdPattern.test(id) || sealedIdPattern.test(id);
}

/** The name a chunk is stored under: `<id>.json` in the clear, `<id>.enc` when encrypted. */
export function chunkFileName(id: string): string {
  return plainIdPattern.test(id) ? `${id}.json` : `${id}.enc`;
}

/**
 * How a chunk's JSON becomes the bytes a store keeps, and the id they are kept
 * under. Without encryption keys: the JSON itself, named by its SHA-256. With
 * them (AGENT_ENCRYPTION_KEYS, the payload codec's keys): the JSON sealed with
 * AES-256-GCM under the current key (storage/aes-gcm.ts, the payload codec's
 * scheme), named by an HMAC of the JSON and the key's id.
 *
 * Why an HMAC and not a hash. The id is visible to whoever can list the bucket
 * or the directory, and is carried in workflow state. A SHA-256 of the plaintext
 * would let anyone holding a guess at a conversation confirm it by hashing it
 * and looking for the name, which encryption is meant to prevent. A hash of the
 * ciphertext would leak nothing, but a fresh nonce makes every write of the same
 * chunk a new object, so an activity retried after storing its chunk would leave
 * an orphan and the store would no longer be written once. An HMAC of the
 * plaintext, keyed by a key derived from the encryption key (HKDF, so the AES
 * key is never used for anything else), keeps both: the same chunk under the
 * same key has the same id (written once, idempotent retries), and only holders
 * of the key can compute or test one. Reads check it after decrypting, so
 * ciphertext copied under another chunk's name reads as missing.
 *
 * The id names the key, so a reader knows which key it needs before it reads
 * anything, and after a rotation old chunks are read with the old key while new
 * ones are written under the new one. Chunks written before encryption was
 * turned on are still read, checked against their SHA-256, as the payload codec
 * still reads payloads written before it.
 */
export class ChunkCodec {
  private readonly addressKeys = new Map<string, Buffer>();

  constructor(private readonly keys: EncryptionKeyRing | undefined) {}

  encode(json: string): { id: string; bytes: Uint8Array } {
    const plaintext = Buffer.from(json);
    const key = this.keys?.current;
    if (!key) return { id: sha256(plaintext), bytes: plaintext };
    const id = `${this.address(key, plaintext)}.${key.id}`;
    return { id, bytes: seal(key, plaintext) };
  }

  /**
   * The JSON of the chunk `id` names, or undefined when `bytes` are not that
   * chunk (damaged or replaced: the call then goes inline). Throws a
   * DecryptionError naming the key when this process lacks it or it does not
   * authenticate the bytes.
   */
  decode(id: string, bytes: Uint8Array): string | undefined {
    if (plainIdPattern.test(id)) return sha256(bytes) === id ? Buffer.from(bytes).toString() : undefined;
    const match = sealedIdPattern.exec(id);
    if (!match) return undefined;
    const [, address, keyId] = match;
    const plaintext = unseal(this.keys, keyId, bytes, `transcript chunk ${id}`);
    // unseal succeeded, so the ring has the key.
    return this.address(this.keys!.byId.get(keyId)!, plaintext) === address ? plaintext.toString() : undefined;
  }

  private address(key: EncryptionKey, plaintext: Uint8Array): string {
    let addressKey = this.addressKeys.get(key.id);
    if (!addressKey) {
      addressKey = Buffer.from(hkdfSync('sha256', key.material, Buffer.alloc(0), addressKeyInfo, 32));
      this.addressKeys.set(key.id, addressKey);
    }
    return createHmac('sha256', addressKey).update(plaintext).digest('hex');
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
