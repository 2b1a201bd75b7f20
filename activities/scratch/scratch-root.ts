import { mkdir, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isInside } from '../../tools/workspace';

/**
 * Where a worker makes an eval's scratch copies of a workspace (docs/evals-tools.md): AGENT_EVAL_SCRATCH_ROOT, else
 * `durable-agent-eval-scratch` in the system's temporary directory. Never inside the workspace root: the workspace
 * may be the root itself (the CLI's default, the directory it runs in), so a scratch under the root could be inside
 * the very workspace it copies, seen by every run there. The workers' workspace checks accept a run's workspace in
 * this directory only when the run is an eval's (prepareRun, the tool activity), and an eval's tools run nowhere else.
 */
export function defaultScratchRoot(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.AGENT_EVAL_SCRATCH_ROOT || path.join(os.tmpdir(), 'durable-agent-eval-scratch'));
}

/** The scratch root, made when missing (only its owner may enter it), with symlinks resolved. */
export async function openScratchRoot(root: string): Promise<string> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  return realpath(root);
}

/** Fails unless `workspace` (symlinks resolved) lies strictly inside the scratch root; returns its real path. */
export async function assertInsideScratch(root: string, workspace: string): Promise<string> {
  const [realRoot, real] = await Promise.all([
    realpath(root).catch(() => root),
    realpath(workspace).catch(() => {
      throw new Error(`workspace "${workspace}" is not an existing directory`);
    }),
  ]);
  if (real === realRoot || !isInside(realRoot, real)) {
    throw new Error(
      `workspace "${workspace}" is not a scratch copy in "${root}" (AGENT_EVAL_SCRATCH_ROOT): an eval's tools run only in one (makeScratchWorkspace)`,
    );
  }
  return real;
}
