import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ToolInputError } from '../agent/errors';

/**
 * Resolves a path the model gave against the run's workspace and refuses any
 * that would leave it: `..`, absolute paths elsewhere, NUL bytes, and symlinks
 * (anywhere along the path) that point outside. For a path that does not exist
 * yet (a file to write), its nearest existing ancestor is checked instead.
 */
export async function resolveInWorkspace(workspace: string, requested: string): Promise<string> {
  if (requested.includes('\0')) {
    throw new ToolInputError('path must not contain NUL bytes');
  }
  const root = await realpath(workspace);
  const target = path.resolve(root, requested);
  if (!isInside(root, target)) {
    throw new ToolInputError(`path "${requested}" is outside the workspace`);
  }
  const real = await realpathOfNearestExisting(target);
  if (!isInside(root, real)) {
    throw new ToolInputError(`path "${requested}" resolves through a symlink to outside the workspace`);
  }
  return target;
}

/** The path relative to the workspace, for messages the model reads. */
export function relativeToWorkspace(workspace: string, absolute: string): string {
  return path.relative(workspace, absolute) || '.';
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

async function realpathOfNearestExisting(target: string): Promise<string> {
  let current = target;
  const missing: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(current), ...missing.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const parent = path.dirname(current);
      if (parent === current) return target;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/** Fails with a clear message unless the workspace is an existing directory. */
export async function assertWorkspaceDirectory(workspace: string): Promise<void> {
  const info = await stat(workspace).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new Error(`workspace "${workspace}" is not an existing directory`);
  }
}
