import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Message } from '../../agent/messages';

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

export function chunkId(chunk: Chunk): string {
  return createHash('sha256').update(JSON.stringify(chunk)).digest('hex');
}

/** Keeps assembled conversations of recent ids, so a worker that made the last call loads the next one without reading the chain. */
abstract class ChunkStore implements TranscriptStore {
  private readonly recent = new Map<string, Message[]>();
  constructor(private readonly cacheSize = 64) {}

  protected abstract readChunk(id: string): Promise<Chunk | undefined>;
  protected abstract writeChunk(id: string, chunk: Chunk): Promise<void>;

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
      const chunk = await this.readChunk(current);
      if (!chunk) return undefined;
      chunks.push(chunk);
      current = chunk.parent;
    }
    const whole = [...messages, ...chunks.reverse().flatMap((chunk) => chunk.messages)];
    this.remember(id, whole);
    return whole;
  }

  async append(parent: string | undefined, messages: Message[]): Promise<string> {
    const chunk: Chunk = { parent: parent ?? null, messages };
    const id = chunkId(chunk);
    await this.writeChunk(id, chunk);
    const base = parent ? this.recent.get(parent) : [];
    if (base) this.remember(id, [...base, ...messages]);
    return id;
  }

  private remember(id: string, messages: Message[]): void {
    this.recent.set(id, messages);
    if (this.recent.size > this.cacheSize) this.recent.delete(this.recent.keys().next().value!);
  }
}

export class MemoryTranscriptStore extends ChunkStore {
  readonly chunks = new Map<string, Chunk>();
  protected async readChunk(id: string) {
    return this.chunks.get(id);
  }
  protected async writeChunk(id: string, chunk: Chunk) {
    this.chunks.set(id, chunk);
  }
}

/**
 * Chunks as files under a directory. Content-addressed and written once
 * (atomically, by rename), so any number of workers can share the directory —
 * on one machine, or across machines on a shared file system (NFS, EFS, Filestore).
 */
export class FileTranscriptStore extends ChunkStore {
  constructor(readonly directory: string) {
    super();
  }
  private file(id: string): string {
    return path.join(this.directory, id.slice(0, 2), `${id}.json`);
  }
  protected async readChunk(id: string): Promise<Chunk | undefined> {
    if (!/^[0-9a-f]{64}$/.test(id)) return undefined;
    const text = await readFile(this.file(id), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    return text === undefined ? undefined : (JSON.parse(text) as Chunk);
  }
  protected async writeChunk(id: string, chunk: Chunk): Promise<void> {
    const file = this.file(id);
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, JSON.stringify(chunk));
    await rename(temporary, file);
  }
}

export function defaultTranscriptDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGENT_TRANSCRIPT_DIR) return env.AGENT_TRANSCRIPT_DIR;
  const base = env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(base, 'durable-agent', 'transcripts');
}
