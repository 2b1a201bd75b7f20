import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { seal, unseal } from './aes-gcm';
import type { EncryptionKey, EncryptionKeyRing } from './encryption-keys';
import { syntheticNonce } from './synthetic-nonce';

const plainRefPattern = /^[0-9a-f]{64}$/;
const sealedRefPattern = /^([0-9a-f]{64})\.([A-Za-z0-9._-]{1,64})$/;
const addressKeyInfo = 'durable-agent attachment address';

/**
 * How an attachment's bytes become what the store keeps, and the name (`ref`) they are kept under: the scheme of
 * transcript chunks (storage/transcript/chunk-codec.ts, which says why) applied to bytes. Without encryption keys, the
 * bytes themselves under their SHA-256. With them (AGENT_ENCRYPTION_KEYS, the payload codec's keys), the bytes sealed
 * with AES-256-GCM under the current key, named by an HMAC of the plaintext (a key derived by HKDF under its own label)
 * and the key's id: the same file is one object (stored once, however often it is sent), and nobody without the key
 * can confirm a guess at a file from its name. The nonce is synthetic (storage/synthetic-nonce.ts), so a second write
 * of the same file writes the same bytes. Reads check the name against the plaintext, so an object copied under
 * another file's name reads as missing, never as the wrong file.
 */
export class AttachmentCodec {
  private readonly addressKeys = new Map<string, Buffer>();

  constructor(private readonly keys: EncryptionKeyRing | undefined) {}

  encode(plaintext: Uint8Array): { ref: string; bytes: Uint8Array } {
    const key = this.keys?.current;
    if (!key) return { ref: sha256(plaintext), bytes: plaintext };
    return { ref: `${this.address(key, plaintext)}.${key.id}`, bytes: seal(key, plaintext, syntheticNonce(key, plaintext)) };
  }

  /**
   * The attachment `ref` names, or undefined when `bytes` are not it (damaged or replaced). Throws a DecryptionError
   * naming the key when this process lacks it or it does not authenticate the bytes.
   */
  decode(ref: string, bytes: Uint8Array): Uint8Array | undefined {
    if (plainRefPattern.test(ref)) return sha256(bytes) === ref ? bytes : undefined;
    const match = sealedRefPattern.exec(ref);
    if (!match) return undefined;
    const [, address, keyId] = match;
    const plaintext = unseal(this.keys, keyId!, bytes, `attachment ${ref}`);
    return this.address(this.keys!.byId.get(keyId!)!, plaintext) === address ? plaintext : undefined;
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
