import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { seal, unseal } from './aes-gcm';
import type { EncryptionKeyRing } from './encryption-keys';
import { syntheticNonce } from './synthetic-nonce';

const PayloadMessage = temporal.api.common.v1.Payload;

export const encryptedEncoding = 'binary/encrypted';
export const keyIdMetadataKey = 'encryption-key-id';

/**
 * Encrypts each payload whole (its metadata too, so even the encoding is hidden)
 * with AES-256-GCM under the key ring's current key (aes-gcm.ts: the key id is
 * authenticated with the ciphertext), and names the key in the new payload's
 * metadata, so a payload relabelled with another key id fails authentication
 * instead of decrypting to garbage. The nonce is derived from the plaintext
 * (synthetic-nonce.ts: why that is sound), so one payload is one ciphertext and
 * one object in external storage, however often a replay encodes it again.
 * Payloads sealed earlier with a random nonce decrypt as before: the nonce
 * travels with the ciphertext.
 *
 * Without a key ring it encodes nothing, and reports any encrypted payload it
 * meets as undecryptable by key id (a DecryptionError), rather than passing
 * ciphertext on to the JSON converter. Payloads that were never encrypted
 * (written before encryption was turned on) are passed through on decode.
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keys: EncryptionKeyRing | undefined) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const keys = this.keys;
    if (!keys) return payloads;
    const key = keys.current;
    return payloads.map((payload) => {
      const plaintext = PayloadMessage.encode(payload).finish();
      return {
        metadata: { encoding: Buffer.from(encryptedEncoding), [keyIdMetadataKey]: Buffer.from(key.id) },
        data: seal(key, plaintext, syntheticNonce(key, plaintext)),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (isEncrypted(payload) ? this.decrypt(payload) : payload));
  }

  private decrypt(payload: Payload): Payload {
    const keyId = Buffer.from(payload.metadata![keyIdMetadataKey] ?? '').toString();
    const plaintext = unseal(this.keys, keyId, payload.data ?? new Uint8Array(), 'a payload');
    return PayloadMessage.decode(plaintext) as Payload;
  }
}

export function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && Buffer.from(encoding).toString() === encryptedEncoding;
}
