import { builtInWorkspaceTools, evalLabels, evalRefusal, fixtureFor, type EvalTools } from '../core/eval-tools';
import type { ToolCall } from '../core/messages';
import type { ToolKind } from '../core/tool-names';
import type { ToolRunSettings } from '../activities';

/** How an eval answers a call itself: the recorded result, or a refusal; the label marks which on the call's summary. */
export interface EvalAnswer {
  label: string;
  content: string;
  isError: boolean;
}

/**
 * What an eval's run (input.evalTools, docs/evals-tools.md) does with a tool call whose arguments parsed, before
 * anything runs or asks a person: a fixture of the same tool and canonical arguments answers it, deterministically,
 * since the fixture is in the run's input; a subagent without one runs as a child with the same evalTools; a
 * built-in workspace tool runs when unrecorded calls run in the scratch copy; anything else is refused. Undefined:
 * the call runs as in any run.
 */
export function evalToolAnswer(
  evalTools: EvalTools,
  call: ToolCall,
  parsedArguments: unknown,
  kind: ToolKind,
  settings: ToolRunSettings | undefined,
): EvalAnswer | undefined {
  if (kind.kind === 'handoff') return undefined;
  const fixture = fixtureFor(evalTools.fixtures, call.name, parsedArguments);
  if (fixture) return { label: evalLabels.recorded, content: fixture.content, isError: fixture.isError };
  if (kind.kind === 'subagent') return undefined;
  // An MCP tool is never a workspace tool, whatever its name.
  const workspaceTool = builtInWorkspaceTools.includes(call.name) && settings !== undefined && !settings.mcp;
  if (workspaceTool && evalTools.unrecorded === 'scratch') return undefined;
  return { label: evalLabels.refused, content: evalRefusal(call.name, evalTools.unrecorded, workspaceTool), isError: true };
}
