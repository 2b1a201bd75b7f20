import { existsSync } from 'node:fs';
import { mkdir, open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * How a name inside an already opened directory is opened, created and read as a link, without resolving the
 * directory's own path again. Node has no openat(2); on Linux the magic link /proc/self/fd/<fd> stands for the
 * open directory itself (the kernel follows the descriptor, not a path), so `/proc/self/fd/<fd>/<name>` looks
 * `name` up in exactly that directory. A symlink swapped in anywhere above it afterwards changes nothing.
 *
 * Where /proc/self/fd is missing (macOS, BSDs), the directory's path is used instead: the final component is
 * still opened with O_NOFOLLOW and the opened file's real path is checked afterwards (realpath plus the same
 * device and inode as the descriptor), but a directory above it swapped for a symlink between the walk and the
 * open is not caught until that check. Not race-free, only close.
 */
export interface DirectoryAccess {
  /** Whether this is the race-free /proc/self/fd kind. */
  readonly raceFree: boolean;
  /** A path naming `name` inside the open directory `directory` (whose walked, real path is `directoryPath`). */
  child(directory: FileHandle, directoryPath: string, name: string): string;
  /** A path naming the opened file or directory itself, for calls that take no descriptor (readdir). */
  self(handle: FileHandle, walkedPath: string): string;
  /** Where the opened file or directory really is now, or undefined if that cannot be told (it was deleted). */
  realPathOf(handle: FileHandle, walkedPath: string): Promise<string | undefined>;
}

const procFd = '/proc/self/fd';

const procAccess: DirectoryAccess = {
  raceFree: true,
  child: (directory, _directoryPath, name) => `${procFd}/${directory.fd}/${name}`,
  self: (handle) => `${procFd}/${handle.fd}`,
  async realPathOf(handle) {
    const target = await readlink(`${procFd}/${handle.fd}`).catch(() => undefined);
    // The kernel appends " (deleted)" to a removed file's link and names non-file objects "type:[id]".
    return target && path.isAbsolute(target) && !target.endsWith(' (deleted)') ? target : undefined;
  },
};

const pathAccess: DirectoryAccess = {
  raceFree: false,
  child: (_directory, directoryPath, name) => path.join(directoryPath, name),
  self: (_handle, walkedPath) => walkedPath,
  async realPathOf(handle, walkedPath) {
    const real = await realpath(walkedPath).catch(() => undefined);
    if (!real) return undefined;
    const [opened, named] = await Promise.all([handle.stat(), stat(real).catch(() => undefined)]);
    return named && named.dev === opened.dev && named.ino === opened.ino ? real : undefined;
  },
};

let detected: DirectoryAccess | undefined;

/** The race-free kind where the magic links work (checked once, on a real descriptor), the path kind elsewhere. */
export async function directoryAccess(): Promise<DirectoryAccess> {
  if (detected) return detected;
  detected = pathAccess;
  if (existsSync(procFd)) {
    const probe = await open(path.resolve('/'), 'r').catch(() => undefined);
    if (probe) {
      const target = await readlink(`${procFd}/${probe.fd}`).catch(() => undefined);
      await probe.close();
      if (target === path.resolve('/')) detected = procAccess;
    }
  }
  return detected;
}

/** The path kind, for tests that check the fallback on Linux too. */
export const pathDirectoryAccess: DirectoryAccess = pathAccess;

/** Creates `name` inside the open directory; mkdir never follows a final symlink (it fails with EEXIST). */
export function makeDirectoryAt(
  access: DirectoryAccess,
  directory: FileHandle,
  directoryPath: string,
  name: string,
): Promise<unknown> {
  return mkdir(access.child(directory, directoryPath, name), 0o777);
}
