import { ApplicationFailure } from '@temporalio/common';
import { failureTypes } from '../core/errors';
import type { Tool } from '../tools';
import type { ToolActivitySettings } from '../tools/define-tool';
import { assertInsideRoot, assertWorkspaceDirectory } from '../tools/workspace';

export interface PrepareRunInput {
  tools: string[];
  workspace: string;
}

export interface RunSetup {
  /** Activity settings per enabled tool, recorded once in history so the workflow can schedule each tool its own way. */
  tools: Record<string, ToolActivitySettings>;
}

/**
 * Checks, once at the start of a run and before any model call, what only the
 * worker can know: that the workspace exists inside the worker's workspace root
 * and that every enabled tool is registered. Mistakes here are configuration
 * errors and fail the run loudly instead of confusing the model.
 */
export function createPrepareRun(tools: Tool[], workspaceRoot: string) {
  const registry = new Map(tools.map((tool) => [tool.name, tool]));
  return async function prepareRun(input: PrepareRunInput): Promise<RunSetup> {
    const unknown = input.tools.filter((name) => !registry.has(name));
    if (unknown.length > 0) {
      throw ApplicationFailure.create({
        type: failureTypes.configuration,
        nonRetryable: true,
        message: `unknown tools: ${unknown.join(', ')}; this worker has: ${[...registry.keys()].join(', ')}`,
      });
    }
    await assertWorkspaceDirectory(input.workspace)
      .then(() => assertInsideRoot(workspaceRoot, input.workspace))
      .catch((error: Error) => {
        throw ApplicationFailure.create({ type: failureTypes.configuration, nonRetryable: true, message: error.message });
      });
    return { tools: Object.fromEntries(input.tools.map((name) => [name, registry.get(name)!.activity])) };
  };
}
