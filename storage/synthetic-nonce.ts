import { createHmac, hkdfSync } from 'node:crypto';
import { nonceBytes } from './aes-gcm';
import type { EncryptionKey } from './encryption-keys';

const nonceKeyInfo = 'durable-agent payload nonce';

// One derived key per encryption key object; a WeakMap so a key ring that is dropped takes its derived keys with it.
const nonceKeys = new WeakMap<EncryptionKey, Buffer>();

/**
 * The nonce a payload is sealed with: HMAC-SHA-256 of its plaintext, under a
 * key derived from the encryption key, cut to GCM's 12 bytes. The same payload
 * under the same key is then the same ciphertext, so external storage, which
 * names an object by the hash of the bytes it stores, writes it once: a replay
 * that encodes a run's payloads again (to answer a query on a closed run, say)
 * finds every object already there, instead of adding copies no one deletes.
 *
 * Why this keeps AES-GCM sound. GCM fails when one nonce seals two different
 * plaintexts; here that needs two plaintexts whose 96-bit HMAC prefixes collide,
 * which is as unlikely as two random 96-bit nonces colliding (the bound NIST's
 * random-nonce limit of 2^32 messages per key rests on). The same nonce with the
 * same plaintext gives the same ciphertext, which reveals only that two payloads
 * are equal; external storage reveals that anyway, by naming objects after their
 * content. The HMAC key is derived by HKDF under its own label, so the AES key is
 * used for nothing but AES, and nobody without the key can compute the nonce (or
 * the ciphertext, or the object name) of a guessed plaintext to confirm a guess.
 * This is the synthetic-IV construction of deterministic authenticated
 * encryption (SIV; AES-GCM-SIV derives its nonce the same way), with GCM's own
 * tag still authenticating every byte. Transcript chunks and attachments are
 * sealed and named the same way (content-codec.ts): one plaintext, one object.
 */
export function syntheticNonce(key: EncryptionKey, plaintext: Uint8Array): Buffer {
  let nonceKey = nonceKeys.get(key);
  if (!nonceKey) {
    nonceKey = Buffer.from(hkdfSync('sha256', key.material, Buffer.alloc(0), nonceKeyInfo, 32));
    nonceKeys.set(key, nonceKey);
  }
  return createHmac('sha256', nonceKey).update(plaintext).digest().subarray(0, nonceBytes);
}
