import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Message } from '../../core/messages';

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

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const chunkIdPattern = /^[0-9a-f]{64}$/;

/**
 * A transcript store over any place that keeps text by key: chunks are stored as
 * their JSON, named by its SHA-256, and checked against it when read, so a chunk
 * that was damaged or replaced reads as missing (and the model call goes inline)
 * instead of showing the model a wrong conversation. Keeps assembled
 * conversations of recent ids, so a worker that made the last call loads the
 * next one without reading the chain.
 */
export abstract class ChunkStore implements TranscriptStore {
  private readonly recent = new Map<string, Message[]>();
  constructor(private readonly cacheSize = 64) {}

  /** The stored text of a chunk, or undefined when there is none. */
  protected abstract readChunk(id: string): Promise<string | undefined>;
  /** Stores a chunk's text under its id; a chunk already stored may be left as it is (same id, same text). */
  protected abstract writeChunk(id: string, text: string): Promise<void>;

  async load(id: string): Promise<Message[] | undefined> {
    const cached = this.recent.get(id);
    if (cached) return cached;
    const chunks: Chunk[] = [];
    let messages: Message[] = [];
    for (let current: string | null = id; current; ) {
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
    const text = JSON.stringify({ parent: parent ?? null, messages } satisfies Chunk);
    const id = sha256(text);
    await this.writeChunk(id, text);
    const base = parent ? this.recent.get(parent) : [];
    if (base) this.remember(id, [...base, ...messages]);
    return id;
  }

  private async verifiedChunk(id: string): Promise<Chunk | undefined> {
    if (!chunkIdPattern.test(id)) return undefined;
    const text = await this.readChunk(id);
    if (text === undefined || sha256(text) !== id) return undefined;
    return JSON.parse(text) as Chunk;
  }

  private remember(id: string, messages: Message[]): void {
    this.recent.set(id, messages);
    if (this.recent.size > this.cacheSize) this.recent.delete(this.recent.keys().next().value!);
  }
}

export class MemoryTranscriptStore extends ChunkStore {
  readonly chunks = new Map<string, string>();
  protected async readChunk(id: string) {
    return this.chunks.get(id);
  }
  protected async writeChunk(id: string, text: string) {
    this.chunks.set(id, text);
  }
}

/**
 * Chunks as files under a directory: the embedded single-machine default.
 * Written once, atomically (by rename), so the workers of one machine share the
 * directory without locking. Workers on several machines use the S3 store instead.
 */
export class FileTranscriptStore extends ChunkStore {
  constructor(readonly directory: string) {
    super();
  }
  private file(id: string): string {
    return path.join(this.directory, id.slice(0, 2), `${id}.json`);
  }
  protected async readChunk(id: string): Promise<string | undefined> {
    return readFile(this.file(id), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
  }
  protected async writeChunk(id: string, text: string): Promise<void> {
    const file = this.file(id);
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, text);
    await rename(temporary, file);
  }
}
