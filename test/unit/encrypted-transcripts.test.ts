import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { withTranscript } from '../../activities/model/with-transcript';
import { ChunkCodec } from '../../storage/transcript/chunk-codec';
import { FileTranscriptStore, MemoryTranscriptStore } from '../../storage/transcript/transcript-store';
import type { Message } from '../../core/messages';
import { DecryptionError } from '../../storage/aes-gcm';
import { parseEncryptionKeys } from '../../storage/encryption-keys';
import { agentStores } from '../../storage/stores';
import { filesUnder } from '../support/object-store';
import { newKeyEntry } from '../support/encryption';

const k1 = newKeyEntry('k1');
const k2 = newKeyEntry('k2');
const codec = (...entries: string[]) =>
  new ChunkCodec(entries.length ? parseEncryptionKeys(entries.join(','), 'test keys') : undefined);
const store = (...entries: string[]) => new MemoryTranscriptStore(codec(...entries));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const turn1: Message[] = [{ role: 'user', content: 'MARKER-c41d what is the launch code?' }];
const turn2: Message[] = [{ role: 'assistant', content: 'MARKER-77ab it is 0000', toolCalls: [] }];

/** Copies every stored chunk from one memory store into another: a second worker on the same bucket. */
function sharing(from: MemoryTranscriptStore, to: MemoryTranscriptStore): MemoryTranscriptStore {
  for (const [id, bytes] of from.chunks) to.chunks.set(id, bytes);
  return to;
}

describe('transcript chunks with encryption keys', () => {
  it('stores ciphertext named by an HMAC and the key id, never the SHA-256 of the plaintext', async () => {
    const writer = store(k1);
    const first = await writer.append(undefined, turn1);
    expect(first).toMatch(/^[0-9a-f]{64}\.k1$/);
    // Whoever can list the bucket cannot confirm a guessed chunk by hashing it.
    expect(first).not.toContain(sha256(JSON.stringify({ parent: null, messages: turn1 })));
    for (const bytes of writer.chunks.values()) expect(Buffer.from(bytes).toString('latin1')).not.toContain('MARKER');
    // The same chunk under the same key gets the same id: written once, retries idempotent.
    expect(await store(k1).append(undefined, turn1)).toBe(first);
  });

  it('reads a chain back through another worker with the same keys', async () => {
    const writer = store(k1);
    const id = await writer.append(await writer.append(undefined, turn1), turn2);
    expect(await sharing(writer, store(k1)).load(id)).toEqual([...turn1, ...turn2]);
  });

  it('after a rotation reads the old chunks with the old key and writes new ones under the new key', async () => {
    const old = store(k1);
    const first = await old.append(undefined, turn1);
    const rotated = sharing(old, store(k2, k1));
    expect(await rotated.load(first)).toEqual(turn1);
    const second = await rotated.append(first, turn2);
    expect(second).toMatch(/\.k2$/);
    expect(await sharing(rotated, store(k2, k1)).load(second)).toEqual([...turn1, ...turn2]);
  });

  it('reports a chunk under a key this worker lacks as an error naming the key id', async () => {
    const writer = store(k1);
    const id = await writer.append(undefined, turn1);
    await expect(sharing(writer, store(k2)).load(id)).rejects.toThrow(
      `transcript chunk ${id} is encrypted with key "k1", which is not among this process's keys (k2): add it to AGENT_ENCRYPTION_KEYS`,
    );
    await expect(sharing(writer, store()).load(id)).rejects.toThrow(
      `transcript chunk ${id} is encrypted with key "k1", but this process has no encryption keys`,
    );
    const wrongMaterial = await sharing(writer, store(newKeyEntry('k1')))
      .load(id)
      .catch((error: unknown) => error);
    expect(wrongMaterial).toBeInstanceOf(DecryptionError);
    expect((wrongMaterial as DecryptionError).keyId).toBe('k1');
  });

  it('reads ciphertext stored under another chunk’s name as missing', async () => {
    const writer = store(k1);
    const first = await writer.append(undefined, turn1);
    const other = await writer.append(undefined, turn2);
    writer.chunks.set(first, writer.chunks.get(other)!);
    expect(await sharing(writer, store(k1)).load(first)).toBeUndefined();
  });

  it('still reads chunks written in the clear before encryption was turned on', async () => {
    const before = store();
    const id = await before.append(undefined, turn1);
    expect(id).toBe(sha256(JSON.stringify({ parent: null, messages: turn1 })));
    const after = sharing(before, store(k1));
    expect(await after.load(id)).toEqual(turn1);
    expect(await after.append(id, turn2)).toMatch(/\.k1$/);
  });

  it('turns a chunk it cannot decrypt into TranscriptUnavailable naming the key, so the workflow resends inline', async () => {
    const writer = store(k1);
    const base = await writer.append(undefined, turn1);
    const failure = await withTranscript(
      sharing(writer, store(k2)),
      { model: 'openai:test', tools: [], transcript: { base, baseLength: 1, messages: [] } },
      async () => {
        throw new Error('never called');
      },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe('TranscriptUnavailable');
    expect((failure as ApplicationFailure).nonRetryable).toBe(true);
    expect((failure as ApplicationFailure).message).toContain(
      `transcript ${base} cannot be read from this worker's transcript store`,
    );
    expect((failure as ApplicationFailure).message).toContain(
      'is encrypted with key "k1", which is not among this process\'s keys (k2)',
    );
  });
});

describe('the local-directory transcript store (AGENT_TRANSCRIPT_DIR)', () => {
  it('seals its files with AGENT_ENCRYPTION_KEYS, and the plaintext is in none of them', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'sealed-transcripts-'));
    const transcripts = agentStores({ AGENT_TRANSCRIPT_DIR: directory, AGENT_ENCRYPTION_KEYS: k1 }).transcripts;
    expect(transcripts).toBeInstanceOf(FileTranscriptStore);
    const id = await transcripts.append(await transcripts.append(undefined, turn1), turn2);

    const files = await filesUnder(directory);
    expect(files.map((file) => path.basename(file))).toEqual(expect.arrayContaining([`${id}.enc`]));
    expect(files).toHaveLength(2);
    for (const file of files) expect((await readFile(file)).toString('latin1')).not.toContain('MARKER');

    const rotated = agentStores({ AGENT_TRANSCRIPT_DIR: directory, AGENT_ENCRYPTION_KEYS: `${k2},${k1}` }).transcripts;
    expect(await rotated.load(id)).toEqual([...turn1, ...turn2]);
  });
});
