import type { UnrecordedToolPolicy } from '../../core/eval-types';
import { assertInsideRoot } from '../../tools/workspace';
import { assertInsideScratch, defaultScratchRoot } from './scratch-root';

/** The directories a worker's runs may work in: the workspace root, and the scratch root of eval runs. */
export interface WorkspaceRoots {
  workspaceRoot: string;
  scratchRoot: string;
}

/** The roots from a bare workspace root (callers from before the scratch root), or as given. */
export function rootsOf(given: string | WorkspaceRoots): WorkspaceRoots {
  return typeof given === 'string' ? { workspaceRoot: given, scratchRoot: defaultScratchRoot() } : given;
}

/**
 * Checks a run's workspace: inside the workspace root, as always; an eval whose tools may run (`scratch`) must work
 * in a scratch copy, never in a real workspace; an eval that refuses every unrecorded call (`refuse`) runs no tool
 * on its workspace, which may be either.
 */
export async function assertRunWorkspace(
  roots: WorkspaceRoots,
  workspace: string,
  evalTools?: UnrecordedToolPolicy,
): Promise<void> {
  if (evalTools === undefined) return void (await assertInsideRoot(roots.workspaceRoot, workspace));
  if (evalTools === 'scratch') return void (await assertInsideScratch(roots.scratchRoot, workspace));
  await assertInsideScratch(roots.scratchRoot, workspace).catch(() => assertInsideRoot(roots.workspaceRoot, workspace));
}
