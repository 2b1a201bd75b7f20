import { z } from 'zod';
import type { Tool } from './define-tool';

/**
 * Marks a tool argument as a path in the workspace. What a person is shown of such an argument, when asked to approve
 * the call and on the tool's card (the stream's tool input), is the path the tool will open: resolved, relative to the
 * workspace, shortened in its middle if at all (core/workspace-path.ts). Every tool whose argument is a path declares
 * it this way, so that no tool shows the path as the model wrote it.
 */
const workspacePaths = z.registry<{ workspacePath: true }>();

/** A string argument that names a file or directory in the workspace. */
export function workspacePath(description: string): z.ZodString {
  return z.string().describe(description).register(workspacePaths, { workspacePath: true });
}

/** The names of `tool`'s top-level arguments declared with workspacePath (optional and defaulted ones too). */
export function pathArgumentsOf(tool: Pick<Tool, 'input'>): string[] {
  const shape = (tool.input as { shape?: Record<string, z.ZodType> }).shape;
  if (!shape || typeof shape !== 'object') return [];
  return Object.keys(shape).filter((name) => workspacePaths.has(unwrapped(shape[name])));
}

/** The schema inside optional, nullable and default wrappers. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let inner = schema;
  for (let depth = 0; depth < 8; depth++) {
    const def = (inner as { _zod?: { def?: { innerType?: z.ZodType } } })._zod?.def;
    if (!def?.innerType) return inner;
    inner = def.innerType;
  }
  return inner;
}
