import { readFile, rename, writeFile } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import type { Message } from '../../core/messages';
import { ChunkCodec, chunkFileName, isChunkId } from './chunk-codec';

/**
 * A content-addressed, append-only store of conversations. A transcript is a
 * chain of chunks; each chunk holds the messages added since its parent. The
 * model activity keeps the conversation here so that each call's input in the
 * workflow history carries only the messages that are new since the last call.
 */
export interface TranscriptStore {
  /** The whole conversation a transcript id stands for, or undefined if any chunk is missing. */
  load(id: string): Promise<Message[] | undefined>;
  /** Stores `messages` appended to `parent` and returns the new transcript's id. */
  append(parent: string | undefined, messages: Message[]): Promise<string>;
}

interface Chunk {
  parent: string | null;
  messages: Message[];
}

/**
 * A transcript store over any place that keeps bytes by key. A chunk is stored
 * as its JSON, in the clear and named by its SHA-256, or, with encryption keys,
 * sealed and named by an HMAC (chunk-codec.ts), and checked against its id when
 * read, so a chunk that was damaged or replaced reads as missing (and the model
 * call goes inline) instead of showing the model a wrong conversation. A chunk
 * under a key this process lacks is an error naming the key (the model activity
 * reports it, and the call goes inline too). Keeps assembled conversations of
 * recent ids, so a worker that made the last call loads the next one without
 * reading the chain.
 */
export abstract class ChunkStore implements TranscriptStore {
  private readonly recent = new Map<string, Message[]>();
  constructor(
    private readonly codec = new ChunkCodec(undefined),
    private readonly cacheSize = 64,
  ) {}

  /** The stored bytes of a chunk, or undefined when there are none. */
  protected abstract readChunk(id: string): Promise<Uint8Array | undefined>;
  /** Stores a chunk's bytes under its id; a chunk already stored may be left as it is (same id, same content). */
  protected abstract writeChunk(id: string, bytes: Uint8Array): Promise<void>;

  async load(id: string): Promise<Message[] | undefined> {
    const cached = this.recent.get(id);
    if (cached) return cached;
    const chunks: Chunk[] = [];
    let messages: Message[] = [];
    for (let current: string | null = id; current;) {
      const hit = this.recent.get(current);
      if (hit) {
        messages = hit;
        break;
      }
      const chunk = await this.verifiedChunk(current);
      if (!chunk) return undefined;
      chunks.push(chunk);
      current = chunk.parent;
    }
    const whole = [...messages, ...chunks.reverse().flatMap((chunk) => chunk.messages)];
    this.remember(id, whole);
    return whole;
  }

  async append(parent: string | undefined, messages: Message[]): Promise<string> {
    const json = JSON.stringify({ parent: parent ?? null, messages } satisfies Chunk);
    const { name: id, bytes } = this.codec.encode(Buffer.from(json));
    await this.writeChunk(id, bytes);
    const base = parent ? this.recent.get(parent) : [];
    if (base) this.remember(id, [...base, ...messages]);
    return id;
  }

  private async verifiedChunk(id: string): Promise<Chunk | undefined> {
    if (!isChunkId(id)) return undefined;
    const bytes = await this.readChunk(id);
    if (bytes === undefined) return undefined;
    const json = this.codec.decode(id, bytes);
    return json === undefined
      ? undefined
      : (JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString()) as Chunk);
  }

  private remember(id: string, messages: Message[]): void {
    this.recent.set(id, messages);
    if (this.recent.size > this.cacheSize) this.recent.delete(this.recent.keys().next().value!);
  }
}

export class MemoryTranscriptStore extends ChunkStore {
  readonly chunks = new Map<string, Uint8Array>();
  protected async readChunk(id: string) {
    return this.chunks.get(id);
  }
  protected async writeChunk(id: string, bytes: Uint8Array) {
    this.chunks.set(id, bytes);
  }
}

/**
 * Chunks as files under a directory: the embedded single-machine default.
 * Written once, atomically (by rename), so the workers of one machine share the
 * directory without locking. Workers on several machines use the S3 store instead.
 */
export class FileTranscriptStore extends ChunkStore {
  constructor(
    readonly directory: string,
    codec?: ChunkCodec,
  ) {
    super(codec);
  }
  private file(id: string): string {
    return path.join(this.directory, id.slice(0, 2), chunkFileName(id));
  }
  protected async readChunk(id: string): Promise<Uint8Array | undefined> {
    return readFileBytes(this.file(id)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
  }
  protected async writeChunk(id: string, bytes: Uint8Array): Promise<void> {
    const file = this.file(id);
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    // The directory usually exists: make it only when the write says it does not (one trip through libuv's thread
    // pool less per chunk).
    await writeBytes(temporary, bytes).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      await mkdir(path.dirname(file), { recursive: true });
      await writeBytes(temporary, bytes);
    });
    await renameFile(temporary, file);
  }
}

// node:fs's callback functions, not node:fs/promises: those open a FileHandle per file, a transferable object that
// costs more of the worker's CPU than the write itself, and a model call reads or writes a chunk each time
// (bench/NOTES.md).
const readFileBytes = promisify(readFile);
const writeBytes = promisify(writeFile);
const renameFile = promisify(rename);
