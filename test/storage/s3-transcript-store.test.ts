import { createHash } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Message } from '../../core/messages';
import { S3TranscriptStore } from '../../storage/transcript/s3-transcript-store';
import { agentStores } from '../../storage/stores';
import { newKeyEntry } from '../support/encryption';
import { createTestBucket, type TestBucket } from '../support/object-store';

// The S3 backend of the transcript store against a real MinIO server. Each store
// built by agentStores() stands for one worker: it has its own in-memory cache and
// no directory of its own, only the bucket.

let bucket: TestBucket;
beforeAll(async () => {
  bucket = await createTestBucket('transcripts');
});

const newWorkerStore = () => agentStores({ ...bucket.env, AGENT_TRANSCRIPT_DIR: '/nonexistent/never-used' }).transcripts;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const turn1: Message[] = [
  { role: 'user', content: 'What is in alpha.txt?' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"alpha.txt"}' }] },
];
const turn2: Message[] = [
  { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'alpha', isError: false },
  { role: 'assistant', content: 'It says alpha.', toolCalls: [] },
];

it('chooses the S3 backend when AGENT_S3_BUCKET is set, under <AGENT_S3_PREFIX>transcripts/', () => {
  const store = newWorkerStore();
  expect(store).toBeInstanceOf(S3TranscriptStore);
  expect((store as S3TranscriptStore).key('a'.repeat(64))).toBe(`agents/test/transcripts/${'a'.repeat(64)}.json`);
});

it('stores each chunk as an object named by the SHA-256 of its content', async () => {
  const store = newWorkerStore();
  const first = await store.append(undefined, turn1);
  const second = await store.append(first, turn2);

  const keys = (await bucket.objects()).map((object) => object.key);
  expect(keys).toEqual(
    expect.arrayContaining([`agents/test/transcripts/${first}.json`, `agents/test/transcripts/${second}.json`]),
  );
  for (const id of [first, second]) {
    const body = await bucket.read(`agents/test/transcripts/${id}.json`);
    expect(sha256(body)).toBe(id);
  }
  expect(JSON.parse((await bucket.read(`agents/test/transcripts/${second}.json`)).toString())).toEqual({
    parent: first,
    messages: turn2,
  });
});

it('lets a second worker, with nothing of its own, load a transcript another wrote', async () => {
  const writer = newWorkerStore();
  const id = await writer.append(await writer.append(undefined, turn1), turn2);

  const reader = newWorkerStore();
  expect(await reader.load(id)).toEqual([...turn1, ...turn2]);
});

it('writes a chunk once: storing the same chunk again leaves the object untouched', async () => {
  const messages: Message[] = [{ role: 'user', content: `written once ${Date.now()}` }];
  const id = await newWorkerStore().append(undefined, messages);
  const key = `agents/test/transcripts/${id}.json`;
  const written = await bucket.lastModified(key);
  // Last-Modified has one-second resolution: a rewrite after this pause would move it.
  await sleep(1_100);
  expect(await newWorkerStore().append(undefined, messages)).toBe(id);
  expect(await bucket.lastModified(key)).toEqual(written);
});

it('reads a chunk whose object was replaced by other bytes as missing, so the model call goes inline', async () => {
  const id = await newWorkerStore().append(undefined, turn1);
  await bucket.s3.send(
    new PutObjectCommand({
      Bucket: bucket.bucket,
      Key: `agents/test/transcripts/${id}.json`,
      Body: JSON.stringify({ parent: null, messages: [] }),
    }),
  );
  expect(await newWorkerStore().load(id)).toBeUndefined();
});

it('reads an id with no object as missing', async () => {
  expect(await newWorkerStore().load('0'.repeat(64))).toBeUndefined();
});

describe('with AGENT_ENCRYPTION_KEYS', () => {
  const k1 = newKeyEntry('k1');
  const k2 = newKeyEntry('k2');
  const workerWithKeys = (keys: string) =>
    agentStores({ ...bucket.env, AGENT_TRANSCRIPT_DIR: '/nonexistent/never-used', AGENT_ENCRYPTION_KEYS: keys }).transcripts;
  const secret: Message[] = [{ role: 'user', content: 'SEALED-MARKER-3e1f the vault code is 4711' }];

  it('stores ciphertext under <hmac>.<key id>.enc: neither the key nor the body reveals the chunk', async () => {
    const id = await workerWithKeys(k1).append(await workerWithKeys(k1).append(undefined, turn1), secret);
    expect(id).toMatch(/^[0-9a-f]{64}\.k1$/);
    const key = `agents/test/transcripts/${id}.enc`;
    const body = await bucket.read(key);
    expect(body.toString('latin1')).not.toContain('SEALED-MARKER');
    expect(body.toString('latin1')).not.toContain('"parent"');
    // The name is not the SHA-256 of the plaintext, so a guessed chunk cannot be confirmed from a listing.
    expect(id).not.toContain(sha256(Buffer.from(JSON.stringify({ parent: null, messages: turn1 }))));
    expect(await workerWithKeys(k1).load(id)).toEqual([...turn1, ...secret]);
  });

  it('lets a worker whose keys were rotated (new first key, old one kept) read the old chunks', async () => {
    const old = await workerWithKeys(k1).append(undefined, secret);
    const rotated = workerWithKeys(`${k2},${k1}`);
    expect(await rotated.load(old)).toEqual(secret);
    const next = await rotated.append(old, turn2);
    expect(next).toMatch(/\.k2$/);
    expect(await workerWithKeys(`${k2},${k1}`).load(next)).toEqual([...secret, ...turn2]);
  });

  it('refuses a chunk under a key the worker lacks, naming the key id', async () => {
    const id = await workerWithKeys(k1).append(undefined, secret);
    await expect(workerWithKeys(k2).load(id)).rejects.toThrow(
      `transcript chunk ${id} is encrypted with key "k1", which is not among this process's keys (k2)`,
    );
  });
});
