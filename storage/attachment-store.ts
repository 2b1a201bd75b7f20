import { access, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isAttachmentRef } from '../core/attachments';
import { AgentError } from '../core/errors';
import { AttachmentCodec } from './attachment-codec';

/**
 * Where the bytes of images and files sent with messages live (docs/attachments.md): beside the payloads, in
 * AGENT_PAYLOAD_DIR or the bucket, content-addressed and encrypted like every payload (attachment-codec.ts). History
 * carries only the `ref` this store returns. The client stores before it sends; the model activity loads at the
 * provider call.
 */
export interface AttachmentStore {
  /** Stores the bytes (once: the same bytes are the same ref and the same object) and returns their ref. */
  put(bytes: Uint8Array): Promise<string>;
  /** The bytes `ref` names; an AttachmentMissingError when they are not there or are not what the ref names. */
  get(ref: string): Promise<Uint8Array>;
}

/** An attachment a message refers to that the store does not have (another store, deleted, damaged). */
export class AttachmentMissingError extends AgentError {}

export abstract class ObjectAttachmentStore implements AttachmentStore {
  constructor(
    private readonly codec: AttachmentCodec,
    /** Where the objects are, for messages. */
    private readonly place: string,
  ) {}

  protected abstract has(ref: string): Promise<boolean>;
  protected abstract read(ref: string): Promise<Uint8Array | undefined>;
  protected abstract write(ref: string, bytes: Uint8Array): Promise<void>;

  async put(plaintext: Uint8Array): Promise<string> {
    const { name: ref, bytes } = this.codec.encode(plaintext);
    if (!(await this.has(ref))) await this.write(ref, bytes);
    return ref;
  }

  async get(ref: string): Promise<Uint8Array> {
    if (!isAttachmentRef(ref)) throw new AttachmentMissingError(`"${ref}" is not an attachment ref`);
    const stored = await this.read(ref);
    const plaintext = stored && this.codec.decode(ref, stored);
    if (!plaintext) {
      throw new AttachmentMissingError(
        `attachment ${ref} is ${stored ? 'damaged' : 'missing'} in ${this.place}; is this process configured with the same storage (AGENT_PAYLOAD_DIR or AGENT_S3_BUCKET) and keys as the client that stored it?`,
      );
    }
    return plaintext;
  }
}

/** Attachments as files under `<AGENT_PAYLOAD_DIR>/attachments/`, written once and atomically (by rename). */
export class FileAttachmentStore extends ObjectAttachmentStore {
  constructor(
    readonly directory: string,
    codec = new AttachmentCodec(undefined),
  ) {
    super(codec, directory);
  }

  private file(ref: string): string {
    return path.join(this.directory, ref.slice(0, 2), ref);
  }

  protected async has(ref: string): Promise<boolean> {
    return access(this.file(ref)).then(
      () => true,
      () => false,
    );
  }

  protected async read(ref: string): Promise<Uint8Array | undefined> {
    return readFile(this.file(ref)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
  }

  protected async write(ref: string, bytes: Uint8Array): Promise<void> {
    const file = this.file(ref);
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, file);
  }
}

/** Attachments in memory: tests, and processes that only check. */
export class MemoryAttachmentStore extends ObjectAttachmentStore {
  readonly objects = new Map<string, Uint8Array>();
  writes = 0;

  constructor(codec = new AttachmentCodec(undefined)) {
    super(codec, 'memory');
  }

  protected async has(ref: string) {
    return this.objects.has(ref);
  }
  protected async read(ref: string) {
    return this.objects.get(ref);
  }
  protected async write(ref: string, bytes: Uint8Array) {
    this.writes++;
    this.objects.set(ref, bytes);
  }
}
