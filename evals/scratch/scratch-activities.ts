import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { failureTypes } from '../../core/errors';
import { assertInsideRoot, assertWorkspaceDirectory } from '../../tools/workspace';
import { heartbeating } from '../../activities/heartbeating';
import { copyWorkspace, scratchCopyLimits, WorkspaceTooLarge, type CopyLimits } from './copy-workspace';
import { openScratchRoot } from '../../activities/scratch/scratch-root';

export interface MakeScratchInput {
  /** The workspace to copy: inside the worker's workspace root, as any run's. */
  workspace: string;
  /** Names the copy: the same key gives the same path (an eval's case and candidate, say). */
  key: string;
}

// A finished copy is named after its key; a copy in progress has a random suffix, renamed into place when whole.
const copyName = (key: string) => `scratch-${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
const partialMark = '.partial-';

/**
 * makeScratchWorkspace and removeScratchWorkspace: a copy of a workspace an eval's run may change at will, under the
 * worker's scratch root (./scratch-root.ts), and its removal.
 *
 * Idempotent by key: the copy is made under a temporary name and renamed into place only when whole, so an attempt
 * retried after a crash finds the finished copy and returns its path, or finds none and copies again (a crashed
 * attempt's half copy is removed first). Two attempts racing both copy; the first rename wins and the other's copy is
 * removed: one copy, one path.
 */
export function createScratchActivities(options: { workspaceRoot: string; scratchRoot: string; limits?: CopyLimits }) {
  const limits = options.limits ?? scratchCopyLimits;
  const failure = (message: string, cause?: unknown) =>
    ApplicationFailure.create({ type: failureTypes.configuration, message, nonRetryable: true, cause: cause as Error });

  async function makeScratchWorkspace({ workspace, key }: MakeScratchInput): Promise<{ path: string }> {
    const root = await openScratchRoot(options.scratchRoot);
    const name = copyName(key);
    const final = path.join(root, name);
    if (await isDirectory(final)) return { path: final };
    try {
      await assertWorkspaceDirectory(workspace);
      await assertInsideRoot(options.workspaceRoot, workspace);
    } catch (error) {
      throw failure((error as Error).message, error);
    }
    await removeStalePartials(root, name);
    const partial = path.join(root, `${name}${partialMark}${randomBytes(6).toString('hex')}`);
    await mkdir(partial, { mode: 0o700 });
    try {
      await heartbeating(() => copyWorkspace(workspace, partial, limits));
      await rename(partial, final).catch(async (error: NodeJS.ErrnoException) => {
        // Another attempt finished first: its copy stands.
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
        await rm(partial, { recursive: true, force: true });
      });
    } catch (error) {
      await rm(partial, { recursive: true, force: true });
      if (error instanceof WorkspaceTooLarge)
        throw failure(
          `${error.message}: a scratch copy holds at most ${limits.maxEntries} files and directories and ${limits.maxBytes} bytes (node_modules/durable-agent/docs/evals-tools.md)`,
          error,
        );
      throw error;
    }
    return { path: final };
  }

  /** Removes a copy made by makeScratchWorkspace; a path that is not one is refused, a copy already gone is fine. */
  async function removeScratchWorkspace({ path: copy }: { path: string }): Promise<void> {
    const root = await openScratchRoot(options.scratchRoot);
    const resolved = path.resolve(copy);
    if (path.dirname(resolved) !== root || !/^scratch-[0-9a-f]{32}$/.test(path.basename(resolved)))
      throw failure(`"${copy}" is not a scratch copy of this worker (in ${root}): nothing was removed`);
    // rm never follows a symlink: it removes the link, whatever a run left in its copy.
    await rm(resolved, { recursive: true, force: true });
  }

  return { makeScratchWorkspace, removeScratchWorkspace };
}

async function isDirectory(candidate: string): Promise<boolean> {
  return (await lstat(candidate).catch(() => undefined))?.isDirectory() ?? false;
}

/** A crashed attempt's half copy of this key: removed before copying again. */
async function removeStalePartials(root: string, name: string): Promise<void> {
  for (const entry of await readdir(root))
    if (entry.startsWith(`${name}${partialMark}`)) await rm(path.join(root, entry), { recursive: true, force: true });
}
