import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { AttachmentCodec } from '../../storage/attachment-codec';
import { AttachmentMissingError, FileAttachmentStore, MemoryAttachmentStore } from '../../storage/attachment-store';
import { loadEncryptionKeys } from '../../storage/encryption-keys';
import { DecryptionError } from '../../storage/aes-gcm';
import { pngBytes } from '../support/attachment-files';
import { newKeyEntry } from '../support/encryption';

const keysOf = (entries: string) => loadEncryptionKeys({ AGENT_ENCRYPTION_KEYS: entries });

describe('the attachment store', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'attachments-'));
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  it('names plain bytes by their SHA-256 and stores the same bytes once', async () => {
    const store = new FileAttachmentStore(directory);
    const image = pngBytes(10_000);
    const ref = await store.put(image);
    expect(ref).toBe(createHash('sha256').update(image).digest('hex'));
    expect(await store.put(Buffer.from(image))).toBe(ref);
    expect(await readdir(path.join(directory, ref.slice(0, 2)))).toEqual([ref]);
    expect(Buffer.from(await store.get(ref)).equals(image)).toBe(true);
  });

  it('seals the bytes with encryption keys: the object holds no plaintext, its name is no hash of it', async () => {
    const store = new FileAttachmentStore(directory, new AttachmentCodec(keysOf(newKeyEntry('k1'))));
    const secret = Buffer.from('the quarterly numbers, confidential\n'.repeat(20));
    const ref = await store.put(secret);
    expect(ref).toMatch(/^[0-9a-f]{64}\.k1$/);
    expect(ref.slice(0, 64)).not.toBe(createHash('sha256').update(secret).digest('hex'));
    const stored = await readFile(path.join(directory, ref.slice(0, 2), ref));
    expect(stored.includes(Buffer.from('confidential'))).toBe(false);
    expect(await store.put(secret)).toBe(ref);
    expect(await readdir(path.join(directory, ref.slice(0, 2)))).toEqual([ref]);
    expect(Buffer.from(await store.get(ref)).equals(secret)).toBe(true);
  });

  it("reads an object copied under another attachment's name as damaged, never as that attachment", async () => {
    const store = new FileAttachmentStore(directory);
    const first = await store.put(Buffer.from('first'));
    const second = await store.put(Buffer.from('second'));
    await writeFile(path.join(directory, second.slice(0, 2), second), Buffer.from('first'));
    await expect(store.get(second)).rejects.toThrow(/is damaged/);
    expect(Buffer.from(await store.get(first)).toString()).toBe('first');
  });

  it('refuses a ref that is a path, and says what to configure for one it lacks', async () => {
    const store = new FileAttachmentStore(directory);
    await expect(store.get('../../../etc/passwd')).rejects.toThrow(AttachmentMissingError);
    await expect(store.get('a'.repeat(64))).rejects.toThrow(/missing in .*AGENT_PAYLOAD_DIR or AGENT_S3_BUCKET/);
  });

  it('names the key a sealed attachment needs when this process lacks it', async () => {
    const writer = new MemoryAttachmentStore(new AttachmentCodec(keysOf(newKeyEntry('k1'))));
    const ref = await writer.put(Buffer.from('sealed'));
    const reader = new MemoryAttachmentStore(new AttachmentCodec(keysOf(newKeyEntry('k2'))));
    reader.objects.set(ref, writer.objects.get(ref)!);
    await expect(reader.get(ref)).rejects.toThrow(DecryptionError);
    await expect(reader.get(ref)).rejects.toThrow(/key "k1"/);
  });
});
