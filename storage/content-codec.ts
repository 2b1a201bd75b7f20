import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { seal, unseal } from './aes-gcm';
import type { EncryptionKey, EncryptionKeyRing } from './encryption-keys';
import { syntheticNonce } from './synthetic-nonce';

/** Bytes stored without encryption: their name is their SHA-256. */
const plainNamePattern = /^[0-9a-f]{64}$/;
/** Bytes stored under encryption key `keyId`: `<HMAC-SHA-256 of the plaintext>.<keyId>` (key ids: encryption-keys.ts). */
const sealedNamePattern = /^([0-9a-f]{64})\.([A-Za-z0-9._-]{1,64})$/;

/** Whether `name` is one a ContentCodec gives, in the clear or sealed. */
export function isContentName(name: string): boolean {
  return plainNamePattern.test(name) || sealedNamePattern.test(name);
}

/** Whether `name` names bytes stored in the clear (written before encryption was turned on, or without keys). */
export function isPlainContentName(name: string): boolean {
  return plainNamePattern.test(name);
}

/**
 * How content-addressed bytes (transcript chunks, attachments) become what a store keeps, and the name they are kept
 * under. Without encryption keys: the bytes themselves, named by their SHA-256. With them (AGENT_ENCRYPTION_KEYS, the
 * payload codec's keys): the bytes sealed with AES-256-GCM under the current key (storage/aes-gcm.ts), named by an
 * HMAC of the plaintext and the key's id.
 *
 * Why an HMAC and not a hash. The name is visible to whoever can list the bucket or the directory, and is carried in
 * workflow state. A SHA-256 of the plaintext would let anyone holding a guess at a conversation or a file confirm it
 * by hashing it and looking for the name, which encryption is meant to prevent. An HMAC of the plaintext, keyed by a
 * key derived from the encryption key (HKDF under each store's own label, so the AES key is never used for anything
 * else), keeps the store content-addressed: the same bytes under the same key have the same name (written once,
 * idempotent retries), and only holders of the key can compute or test one. The nonce is synthetic
 * (synthetic-nonce.ts), so a second write of the same bytes writes the same object. Reads check the name after
 * decrypting, so ciphertext copied under another name reads as missing, never as the wrong content.
 *
 * The name carries the key's id, so a reader knows which key it needs before it reads anything, and after a rotation
 * old objects are read with the old key while new ones are written under the new one. Objects written before
 * encryption was turned on are still read, checked against their SHA-256, as the payload codec still reads payloads
 * written before it.
 */
export class ContentCodec {
  private readonly addressKeys = new Map<string, Buffer>();

  constructor(
    private readonly keys: EncryptionKeyRing | undefined,
    /** The HKDF label of this store's address key: one per kind of content, so names never coincide across stores. */
    private readonly addressLabel: string,
    /** What the content is, for errors: `transcript chunk`, `attachment`. */
    private readonly what: string,
  ) {}

  encode(plaintext: Uint8Array): { name: string; bytes: Uint8Array } {
    const key = this.keys?.current;
    if (!key) return { name: sha256(plaintext), bytes: plaintext };
    return {
      name: `${this.address(key, plaintext)}.${key.id}`,
      bytes: seal(key, plaintext, syntheticNonce(key, plaintext)),
    };
  }

  /**
   * The plaintext `name` stands for, or undefined when `bytes` are not it (damaged or replaced). Throws a
   * DecryptionError naming the key when this process lacks it or it does not authenticate the bytes.
   */
  decode(name: string, bytes: Uint8Array): Uint8Array | undefined {
    if (plainNamePattern.test(name)) return sha256(bytes) === name ? bytes : undefined;
    const match = sealedNamePattern.exec(name);
    if (!match) return undefined;
    const [, address, keyId] = match;
    const plaintext = unseal(this.keys, keyId!, bytes, `${this.what} ${name}`);
    // unseal succeeded, so the ring has the key.
    return this.address(this.keys!.byId.get(keyId!)!, plaintext) === address ? plaintext : undefined;
  }

  private address(key: EncryptionKey, plaintext: Uint8Array): string {
    let addressKey = this.addressKeys.get(key.id);
    if (!addressKey) {
      addressKey = Buffer.from(hkdfSync('sha256', key.material, Buffer.alloc(0), this.addressLabel, 32));
      this.addressKeys.set(key.id, addressKey);
    }
    return createHmac('sha256', addressKey).update(plaintext).digest('hex');
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
