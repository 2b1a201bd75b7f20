import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { AgentError } from '../core/errors';
import type { EncryptionKeyRing } from './encryption-keys';

const PayloadMessage = temporal.api.common.v1.Payload;

export const encryptedEncoding = 'binary/encrypted';
export const keyIdMetadataKey = 'encryption-key-id';

const nonceBytes = 12;
const tagBytes = 16;

/** A payload this process cannot decrypt: its key is unknown here, or is not the key it was encrypted with. */
export class PayloadDecryptionError extends AgentError {
  constructor(
    message: string,
    readonly keyId: string,
  ) {
    super(message);
  }
}

/**
 * Encrypts each payload whole (its metadata too, so even the encoding is hidden)
 * with AES-256-GCM under the key ring's current key, and names the key in the
 * new payload's metadata. The key id is also the GCM additional data, so a
 * payload relabelled with another key id fails authentication instead of
 * decrypting to garbage.
 *
 * Without a key ring it encodes nothing, and reports any encrypted payload it
 * meets as undecryptable by key id, rather than passing ciphertext on to the
 * JSON converter. Payloads that were never encrypted (written before encryption
 * was turned on) are passed through on decode.
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keys: EncryptionKeyRing | undefined) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const keys = this.keys;
    if (!keys) return payloads;
    return payloads.map((payload) => encrypt(payload, keys));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (isEncrypted(payload) ? this.decrypt(payload) : payload));
  }

  private decrypt(payload: Payload): Payload {
    const keyId = Buffer.from(payload.metadata![keyIdMetadataKey] ?? '').toString();
    if (!this.keys) {
      throw new PayloadDecryptionError(
        `a payload is encrypted with key "${keyId}", but this process has no encryption keys: set AGENT_ENCRYPTION_KEYS or AGENT_ENCRYPTION_KEY_FILE`,
        keyId,
      );
    }
    const key = this.keys.byId.get(keyId);
    if (!key) {
      throw new PayloadDecryptionError(
        `a payload is encrypted with key "${keyId}", which is not among this process's keys (${[...this.keys.byId.keys()].join(', ')}): add it to AGENT_ENCRYPTION_KEYS`,
        keyId,
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < nonceBytes + tagBytes) {
      throw new PayloadDecryptionError(`a payload encrypted with key "${keyId}" is truncated (${data.length} bytes)`, keyId);
    }
    const decipher = createDecipheriv('aes-256-gcm', key.material, data.subarray(0, nonceBytes));
    decipher.setAAD(Buffer.from(keyId));
    decipher.setAuthTag(data.subarray(data.length - tagBytes));
    let plaintext: Buffer;
    try {
      plaintext = Buffer.concat([decipher.update(data.subarray(nonceBytes, data.length - tagBytes)), decipher.final()]);
    } catch {
      throw new PayloadDecryptionError(
        `a payload encrypted with key "${keyId}" does not decrypt with this process's key "${keyId}": the key material differs from the one it was encrypted with (or the payload was altered)`,
        keyId,
      );
    }
    return PayloadMessage.decode(plaintext) as Payload;
  }
}

function encrypt(payload: Payload, keys: EncryptionKeyRing): Payload {
  const { id, material } = keys.current;
  const nonce = randomBytes(nonceBytes);
  const cipher = createCipheriv('aes-256-gcm', material, nonce);
  cipher.setAAD(Buffer.from(id));
  const ciphertext = Buffer.concat([cipher.update(PayloadMessage.encode(payload).finish()), cipher.final()]);
  return {
    metadata: { encoding: Buffer.from(encryptedEncoding), [keyIdMetadataKey]: Buffer.from(id) },
    data: Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]),
  };
}

export function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && Buffer.from(encoding).toString() === encryptedEncoding;
}
