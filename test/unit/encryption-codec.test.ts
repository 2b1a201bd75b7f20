import { createHash } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { DecryptionError, seal } from '../../storage/aes-gcm';
import { EncryptionCodec } from '../../storage/encryption-codec';
import { parseEncryptionKeys } from '../../storage/encryption-keys';
import { jsonPayload, metadataText, newKeyEntry } from '../support/encryption';

const secret = { prompt: 'the launch code is 0000', answer: 'never tell' };

function codecWith(...entries: string[]): EncryptionCodec {
  return new EncryptionCodec(parseEncryptionKeys(entries.join(','), 'test keys'));
}

async function decodeError(
  codec: EncryptionCodec,
  payload: Parameters<EncryptionCodec['decode']>[0][number],
): Promise<DecryptionError> {
  const error = await codec.decode([payload]).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof DecryptionError)) throw new Error(`expected a DecryptionError, got ${String(error)}`);
  return error;
}

describe('EncryptionCodec', () => {
  const k1 = newKeyEntry('k1');
  const k2 = newKeyEntry('k2');

  it('round-trips a payload, metadata included, and hides both', async () => {
    const codec = codecWith(k1);
    const original = jsonPayload(secret);
    const [encrypted] = await codec.encode([original]);

    expect(metadataText(encrypted, 'encoding')).toBe('binary/encrypted');
    expect(metadataText(encrypted, 'encryption-key-id')).toBe('k1');
    expect(Object.keys(encrypted.metadata!)).toEqual(['encoding', 'encryption-key-id']);
    expect(Buffer.from(encrypted.data!).toString('latin1')).not.toContain('launch code');
    expect(Buffer.from(encrypted.data!).toString('latin1')).not.toContain('json/plain');

    const [decrypted] = await codec.decode([encrypted]);
    expect(metadataText(decrypted, 'encoding')).toBe('json/plain');
    expect(JSON.parse(Buffer.from(decrypted.data!).toString())).toEqual(secret);
  });

  it('encrypts an equal payload to the same bytes, so external storage keeps one object for it', async () => {
    const codec = codecWith(k1);
    const [first, second] = await codec.encode([jsonPayload(secret), jsonPayload(secret)]);
    const [later] = await codecWith(k1).encode([jsonPayload(secret)]);
    expect(Buffer.from(first.data!).equals(Buffer.from(second.data!))).toBe(true);
    expect(Buffer.from(later.data!).equals(Buffer.from(first.data!))).toBe(true);
  });

  it('gives different payloads different nonces, and the same payload different nonces under different keys', async () => {
    const nonce = (payload: { data?: Uint8Array | null }) => Buffer.from(payload.data!).subarray(0, 12).toString('hex');
    const payloads = Array.from({ length: 200 }, (_, index) => jsonPayload({ ...secret, index }));
    const encrypted = await codecWith(k1).encode(payloads);
    expect(new Set(encrypted.map(nonce)).size).toBe(payloads.length);

    // Same id, other material: the nonce is keyed by the material, so it says nothing across keys.
    const [underK1] = await codecWith(k1).encode([jsonPayload(secret)]);
    const [underOther] = await codecWith(newKeyEntry('k1')).encode([jsonPayload(secret)]);
    expect(nonce(underOther)).not.toBe(nonce(underK1));
  });

  it('derives the nonce with a keyed hash, not a plain hash of the plaintext that anyone could recompute', async () => {
    const original = jsonPayload(secret);
    const [encrypted] = await codecWith(k1).encode([original]);
    const plaintext = temporal.api.common.v1.Payload.encode(original).finish();
    const plainHash = createHash('sha256').update(plaintext).digest().subarray(0, 12);
    expect(Buffer.from(encrypted.data!).subarray(0, 12).equals(plainHash)).toBe(false);
  });

  it('still decrypts payloads sealed with a random nonce (written before nonces were derived)', async () => {
    const keys = parseEncryptionKeys(k1, 'test keys');
    const original = jsonPayload(secret);
    const legacy = {
      metadata: { encoding: Buffer.from('binary/encrypted'), 'encryption-key-id': Buffer.from('k1') },
      data: seal(keys.current, temporal.api.common.v1.Payload.encode(original).finish()),
    };
    const [decrypted] = await new EncryptionCodec(keys).decode([legacy]);
    expect(JSON.parse(Buffer.from(decrypted.data!).toString())).toEqual(secret);
  });

  it('encrypts with the first key and decrypts payloads of any key it knows (rotation)', async () => {
    const [old] = await codecWith(k1).encode([jsonPayload(secret)]);
    const rotated = codecWith(k2, k1);

    const [fresh] = await rotated.encode([jsonPayload(secret)]);
    expect(metadataText(fresh, 'encryption-key-id')).toBe('k2');
    const decoded = await rotated.decode([old, fresh]);
    expect(decoded.map((payload) => JSON.parse(Buffer.from(payload.data!).toString()))).toEqual([secret, secret]);
  });

  it('names the key id when the key is not among those it knows', async () => {
    const [old] = await codecWith(k1).encode([jsonPayload(secret)]);
    const error = await decodeError(codecWith(k2), old);
    expect(error.keyId).toBe('k1');
    expect(error.message).toBe(
      'a payload is encrypted with key "k1", which is not among this process\'s keys (k2): add it to AGENT_ENCRYPTION_KEYS',
    );
  });

  it('refuses, naming the key id, when a key of the same id holds other material', async () => {
    const [encrypted] = await codecWith(k1).encode([jsonPayload(secret)]);
    const error = await decodeError(codecWith(newKeyEntry('k1')), encrypted);
    expect(error.message).toContain('encrypted with key "k1" does not decrypt with this process\'s key "k1"');
  });

  it('says which key is needed when the process has no keys at all', async () => {
    const [encrypted] = await codecWith(k1).encode([jsonPayload(secret)]);
    const keyless = new EncryptionCodec(undefined);
    const error = await decodeError(keyless, encrypted);
    expect(error.message).toBe(
      'a payload is encrypted with key "k1", but this process has no encryption keys: set AGENT_ENCRYPTION_KEYS or AGENT_ENCRYPTION_KEY_FILE',
    );
  });

  it('without keys leaves payloads as they are', async () => {
    const keyless = new EncryptionCodec(undefined);
    const payload = jsonPayload(secret);
    expect(await keyless.encode([payload])).toEqual([payload]);
    expect(await keyless.decode([payload])).toEqual([payload]);
  });

  it('passes payloads that were never encrypted through decode (history from before encryption was on)', async () => {
    const payload = jsonPayload(secret);
    expect(await codecWith(k1).decode([payload])).toEqual([payload]);
  });

  it('detects a payload relabelled with another known key id instead of returning garbage', async () => {
    const [encrypted] = await codecWith(k1).encode([jsonPayload(secret)]);
    const relabelled = { ...encrypted, metadata: { ...encrypted.metadata, 'encryption-key-id': Buffer.from('k2') } };
    const error = await decodeError(codecWith(k2, k1), relabelled);
    expect(error.keyId).toBe('k2');
  });

  it('detects altered ciphertext', async () => {
    const [encrypted] = await codecWith(k1).encode([jsonPayload(secret)]);
    const data = Buffer.from(encrypted.data!);
    data[20] ^= 1;
    await expect(codecWith(k1).decode([{ ...encrypted, data }])).rejects.toThrow(/does not decrypt/);
  });
});
