import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ToolInputError } from '../core/errors';

const maxSymlinkHops = 40;

/**
 * Resolves a path the model gave against the run's workspace and refuses any
 * that would leave it: `..`, absolute paths elsewhere, NUL bytes, and symlinks
 * (anywhere along the path, dangling ones included) that point outside. For a
 * path that does not exist yet (a file to write), the nearest existing ancestor
 * is checked instead.
 *
 * A check of a path before it is opened, so not free of races: a symlink swapped
 * in between the check and the open, or a hard link, still leads outside, and a
 * FIFO blocks the open. Tools open through openInWorkspace (./open-in-workspace.ts),
 * which checks what it opened instead.
 */
export async function resolveInWorkspace(workspace: string, requested: string): Promise<string> {
  const given = path.resolve(workspace);
  const root = await realpath(given);
  // The same lexical check as the opening walk's: NUL bytes, `..` out, absolute paths elsewhere.
  const target = path.join(root, ...workspaceComponents(given, root, requested));
  const real = await realLocation(target, requested);
  if (!isInside(root, real)) {
    throw new ToolInputError(`path "${requested}" resolves through a symlink to outside the workspace`);
  }
  return target;
}

/**
 * The components of a path the model gave, relative to the workspace's real path, with `.` and `..` applied
 * lexically; refused if they leave it (or hold a NUL byte). An absolute path under the workspace as given (which
 * may itself be a symlink) is rebased onto its real location. Symlinks are not looked at here: the opening walk
 * meets them one component at a time.
 */
export function workspaceComponents(given: string, realRoot: string, requested: string): string[] {
  if (requested.includes('\0')) {
    throw new ToolInputError('path must not contain NUL bytes');
  }
  const target =
    path.isAbsolute(requested) && isInside(given, path.resolve(requested))
      ? path.join(realRoot, path.relative(given, path.resolve(requested)))
      : path.resolve(realRoot, requested);
  if (!isInside(realRoot, target)) {
    throw new ToolInputError(`path "${requested}" is outside the workspace`);
  }
  return path.relative(realRoot, target).split(path.sep).filter(Boolean);
}

/** The path relative to the workspace, for messages the model reads. */
export function relativeToWorkspace(workspace: string, absolute: string): string {
  return path.relative(workspace, absolute) || '.';
}

/** Whether `candidate` is `root` or lies under it (both absolute, compared lexically). */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/**
 * Where a path really points once every symlink is followed. Missing trailing
 * parts are kept as they are; a dangling symlink is followed to its target.
 */
async function realLocation(target: string, requested: string): Promise<string> {
  let current = target;
  const missing: string[] = [];
  for (let hops = 0; hops < maxSymlinkHops;) {
    try {
      return path.join(await realpath(current), ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw new ToolInputError(`path "${requested}" goes through a file as if it were a directory`);
      if (code !== 'ENOENT') throw error;
    }
    const link = await lstat(current).catch(() => undefined);
    if (link?.isSymbolicLink()) {
      current = path.resolve(path.dirname(current), await readlink(current));
      hops++;
      continue;
    }
    const parent = path.dirname(current);
    if (parent === current) return target;
    missing.push(path.basename(current));
    current = parent;
  }
  throw new ToolInputError(`path "${requested}" has too many levels of symbolic links`);
}

/**
 * Fails unless `workspace` lies inside `root` (both with symlinks resolved): a
 * worker serves only the workspaces under its AGENT_WORKSPACE_ROOT, whatever a
 * client names. Returns the workspace's real path.
 */
export async function assertInsideRoot(root: string, workspace: string): Promise<string> {
  const [realRoot, real] = await Promise.all([
    realpath(root),
    realpath(workspace).catch(() => {
      throw new Error(`workspace "${workspace}" is not an existing directory`);
    }),
  ]);
  if (!isInside(realRoot, real)) {
    throw new Error(`workspace "${workspace}" is outside this worker's workspace root "${root}" (AGENT_WORKSPACE_ROOT)`);
  }
  return real;
}

/** Fails with a clear message unless the workspace is an existing directory. */
export async function assertWorkspaceDirectory(workspace: string): Promise<void> {
  const info = await stat(workspace).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new Error(`workspace "${workspace}" is not an existing directory`);
  }
}
