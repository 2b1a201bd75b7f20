import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AgentError } from '../core/errors';
import type { EncryptionKey, EncryptionKeyRing } from './encryption-keys';

/** GCM's standard nonce length; a caller that derives its own nonce (synthetic-nonce.ts) makes it this long. */
export const nonceBytes = 12;
const tagBytes = 16;

/** Something this process cannot decrypt: its key is unknown here, or is not the key it was encrypted with. */
export class DecryptionError extends AgentError {
  constructor(
    message: string,
    readonly keyId: string,
  ) {
    super(message);
  }
}

/**
 * AES-256-GCM under `key`: the 12-byte nonce (a fresh random one unless the
 * caller derives it: payloads use a synthetic one, synthetic-nonce.ts), the
 * ciphertext, the 16-byte tag. The key id is the additional authenticated data, so bytes presented as
 * another key's fail authentication instead of decrypting to garbage. The one
 * scheme of this project: payloads (encryption-codec.ts), transcript chunks and
 * attachments (content-codec.ts) are all sealed here.
 */
export function seal(key: EncryptionKey, plaintext: Uint8Array, nonce: Uint8Array = randomBytes(nonceBytes)): Buffer {
  if (nonce.length !== nonceBytes) throw new Error(`an AES-GCM nonce is ${nonceBytes} bytes, not ${nonce.length}`);
  const cipher = createCipheriv('aes-256-gcm', key.material, nonce);
  cipher.setAAD(Buffer.from(key.id));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from(nonce), ciphertext, cipher.getAuthTag()]);
}

/**
 * The plaintext of bytes `seal` made under the key `keyId`, or a DecryptionError
 * naming the key id and saying what to do. `subject` names what is decrypted in
 * the messages ("a payload", "transcript chunk …").
 */
export function unseal(keys: EncryptionKeyRing | undefined, keyId: string, sealed: Uint8Array, subject: string): Buffer {
  if (!keys) {
    throw new DecryptionError(
      `${subject} is encrypted with key "${keyId}", but this process has no encryption keys: set AGENT_ENCRYPTION_KEYS or AGENT_ENCRYPTION_KEY_FILE`,
      keyId,
    );
  }
  const key = keys.byId.get(keyId);
  if (!key) {
    throw new DecryptionError(
      `${subject} is encrypted with key "${keyId}", which is not among this process's keys (${[...keys.byId.keys()].join(', ')}): add it to AGENT_ENCRYPTION_KEYS`,
      keyId,
    );
  }
  const data = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (data.length < nonceBytes + tagBytes) {
    throw new DecryptionError(`${subject} encrypted with key "${keyId}" is truncated (${data.length} bytes)`, keyId);
  }
  const decipher = createDecipheriv('aes-256-gcm', key.material, data.subarray(0, nonceBytes));
  decipher.setAAD(Buffer.from(keyId));
  decipher.setAuthTag(data.subarray(data.length - tagBytes));
  try {
    return Buffer.concat([decipher.update(data.subarray(nonceBytes, data.length - tagBytes)), decipher.final()]);
  } catch {
    throw new DecryptionError(
      `${subject} encrypted with key "${keyId}" does not decrypt with this process's key "${keyId}": the key material differs from the one it was encrypted with (or it was altered)`,
      keyId,
    );
  }
}
