import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StorageDriverClaim, type Payload, type StorageDriver } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { localDirectoryDriverName } from './driver-names';

const PayloadMessage = temporal.api.common.v1.Payload;

/**
 * The embedded single-machine default for Temporal external storage: payloads as
 * files in AGENT_PAYLOAD_DIR, named by the SHA-256 of their bytes, written once
 * and atomically, so the workers and clients of one machine share the directory.
 * History then holds a small claim instead of the payload. Any deployment beyond
 * one machine uses Temporal's official S3 driver instead (AGENT_S3_BUCKET).
 */
export class LocalDirectoryDriver implements StorageDriver {
  readonly name = localDirectoryDriverName;
  readonly type = 'durable-agent.local-directory';

  constructor(readonly directory: string) {}

  async store(_context: unknown, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    return Promise.all(
      payloads.map(async (payload) => {
        const bytes = PayloadMessage.encode(payload).finish();
        const key = createHash('sha256').update(bytes).digest('hex');
        const file = this.file(key);
        await mkdir(path.dirname(file), { recursive: true });
        const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
        await writeFile(temporary, bytes);
        await rename(temporary, file);
        return new StorageDriverClaim({ key });
      }),
    );
  }

  async retrieve(_context: unknown, claims: StorageDriverClaim[]): Promise<Payload[]> {
    return Promise.all(
      claims.map(async (claim) => {
        const key = claim.claimData.key ?? '';
        if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`invalid payload claim "${key}"`);
        const bytes = await readFile(this.file(key)).catch((error: NodeJS.ErrnoException) => {
          throw new Error(
            `payload ${key} is missing from ${this.directory} (${error.code}); is this process configured with the same AGENT_PAYLOAD_DIR as the worker that stored it?`,
          );
        });
        return PayloadMessage.decode(bytes) as Payload;
      }),
    );
  }

  private file(key: string): string {
    return path.join(this.directory, key.slice(0, 2), key);
  }
}
