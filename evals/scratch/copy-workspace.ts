import { createWriteStream } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { OpenedWorkspace, WorkspaceRefusal } from '../../tools/open-in-workspace';
import { AgentError } from '../../core/errors';

/**
 * How much a scratch copy may hold (docs/evals-tools.md): an eval copies the workspace once per case and candidate,
 * so a workspace past these (a checked-out node_modules, a data directory) is refused with a clear error rather than
 * copied hundreds of times. Counted over what is copied: regular files' bytes, and files and directories.
 */
export const scratchCopyLimits = { maxBytes: 100 * 1024 * 1024, maxEntries: 20_000 };

export interface CopyLimits {
  maxBytes: number;
  maxEntries: number;
}

export interface CopySummary {
  files: number;
  directories: number;
  bytes: number;
  /** Entries left out: symlinks, FIFOs, sockets, devices, files with several hard links, anything swapped meanwhile. */
  skipped: number;
}

/** The workspace is past the scratch copy's limits: the eval fails with this, it does not copy part of it. */
export class WorkspaceTooLarge extends AgentError {}

/**
 * Copies the regular files and directories of `source` into `destination` (an empty directory of ours), with the
 * confinement the tools have (tools/open-in-workspace.ts): each entry opened from its directory's descriptor with no
 * final symlink followed, its real path checked inside the workspace, only regular files with one link and
 * directories. A symlink is never followed, whether it points in or out: it is left out, as is any special file.
 * A file is read through the descriptor that was checked, and no further than the size that was counted.
 */
export async function copyWorkspace(
  source: string,
  destination: string,
  limits: CopyLimits = scratchCopyLimits,
): Promise<CopySummary> {
  const workspace = await OpenedWorkspace.open(source);
  const summary: CopySummary = { files: 0, directories: 0, bytes: 0, skipped: 0 };
  const count = (bytes: number) => {
    if (summary.files + summary.directories >= limits.maxEntries)
      throw new WorkspaceTooLarge(`the workspace ${source} has more than ${limits.maxEntries} files and directories`);
    if (summary.bytes + bytes > limits.maxBytes)
      throw new WorkspaceTooLarge(`the workspace ${source} holds more than ${limits.maxBytes} bytes of files`);
    summary.bytes += bytes;
  };
  try {
    const pending = ['.'];
    while (pending.length > 0) {
      const directory = pending.shift()!;
      for (const entry of await entriesOf(workspace, directory)) {
        const relative = directory === '.' ? entry.name : `${directory}/${entry.name}`;
        const target = path.join(destination, ...relative.split('/'));
        if (entry.isDirectory()) {
          count(0);
          await mkdir(target);
          summary.directories++;
          pending.push(relative);
        } else if (entry.isFile() && (await copyFile(workspace, relative, target, count))) summary.files++;
        else summary.skipped++;
      }
    }
  } finally {
    await workspace.close();
  }
  return summary;
}

type Entry = { name: string; isDirectory(): boolean; isFile(): boolean };

/** A directory's entries, listed through its opened descriptor (a directory swapped for a symlink is not listed). */
async function entriesOf(workspace: OpenedWorkspace, relative: string): Promise<Entry[]> {
  const opened = await workspace.open(relative, 'directory');
  try {
    return await readdir(opened.pathOfHandle, { withFileTypes: true });
  } finally {
    await opened.handle.close();
  }
}

/** Copies one regular file through its checked descriptor; false when it was refused (swapped, hard-linked). */
async function copyFile(
  workspace: OpenedWorkspace,
  relative: string,
  target: string,
  count: (bytes: number) => void,
): Promise<boolean> {
  const opened = await workspace.open(relative, 'file').catch((error: unknown) => {
    if (error instanceof WorkspaceRefusal) return undefined;
    throw error;
  });
  if (!opened) return false;
  try {
    const size = opened.info.size;
    count(size);
    // `wx`: created here, never through anything already at the target.
    const output = createWriteStream(target, { flags: 'wx', mode: opened.info.mode & 0o777 });
    if (size === 0) {
      output.end();
      await new Promise<void>((resolve, reject) => output.on('finish', resolve).on('error', reject));
    } else {
      await pipeline(opened.handle.createReadStream({ start: 0, end: size - 1, autoClose: false }), output);
    }
    return true;
  } finally {
    await opened.handle.close();
  }
}
