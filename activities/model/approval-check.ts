import { argumentsText, describeCall, type ApprovalDescription, type ApprovalText } from '../../core/approval-description';
import type { ToolCall } from '../../core/messages';
import { parseToolArguments } from '../../core/tool-arguments';
import { withPathsShown } from '../../core/workspace-path';
import type { Tool } from '../../tools';
import { pathArgumentsOf } from '../../tools/path-argument';

export interface ApprovalAssessment {
  /** The calls the tools' own `needsApproval` wants approved. */
  needsApproval: string[];
  /** How each call that will ask a person is shown, by call id. */
  descriptions: Record<string, ApprovalDescription>;
}

export interface ApprovalRules {
  /** The run's own rules: tools always asked for, or nothing asked (`skip`). Absent: the tools' rules only. */
  approval?: { tools: string[]; skip: boolean };
  /** Calls beyond this many in a reply never run, so nothing is asked for them. */
  maxToolCalls?: number;
  /** The workflow whose conversation holds the calls: where a person reads a clipped call whole. */
  run: string;
  /** The run's workspace: path arguments are shown relative to it (absent in calls of older workflows). */
  workspace?: string;
}

/**
 * Which calls of a reply a person must approve, and what that person is shown.
 * Decided here, in the activity, once, with the arguments the model gave: the
 * answer is recorded in history with the reply, so replay never runs a tool's
 * function again. A call whose arguments the tool would refuse anyway needs no
 * approval by its tool's rule; a `needsApproval` function that throws asks for
 * it, to be safe. The description is read from the same parsed arguments the
 * workflow passes to the tool, so what a person approves is what runs; its path
 * arguments are shown as the paths the tool will open (`docs/x/../../.bashrc`
 * as `.bashrc`), whatever the tool's own description does with them.
 */
export function assessApprovals(calls: ToolCall[], tools: Map<string, Tool>, rules: ApprovalRules): ApprovalAssessment {
  const needsApproval: string[] = [];
  const descriptions: Record<string, ApprovalDescription> = {};
  for (const call of calls.slice(0, rules.maxToolCalls ?? calls.length)) {
    const tool = tools.get(call.name);
    const parsed = parseToolArguments(call.arguments);
    const input = parsed.ok ? tool?.input.safeParse(parsed.value) : undefined;
    const valid = input?.success ? { data: input.data } : undefined;
    const byRule = ruleWants(tool, valid);
    if (byRule) needsApproval.push(call.id);
    const asks = !rules.approval?.skip && (byRule || Boolean(rules.approval?.tools.includes(call.name)));
    if (!asks) continue;
    const paths = tool ? pathArgumentsOf(tool) : [];
    const shown = valid && { data: withPathsShown(valid.data, paths, rules.workspace) };
    const byArguments =
      parsed.ok && paths.length > 0 ? argumentsText(call.name, withPathsShown(parsed.value, paths, rules.workspace)) : undefined;
    descriptions[call.id] = describeCall(call, ownText(tool, shown) ?? byArguments, rules.run);
  }
  return { needsApproval, descriptions };
}

function ruleWants(tool: Tool | undefined, valid: { data: unknown } | undefined): boolean {
  const rule = tool?.needsApproval;
  if (rule === undefined || rule === false) return false;
  if (rule === true) return true;
  if (!valid) return false;
  try {
    return rule(valid.data);
  } catch {
    return true;
  }
}

/** The tool's own description of a valid call; a describer that throws or returns nonsense falls back to the arguments. */
function ownText(tool: Tool | undefined, valid: { data: unknown } | undefined): ApprovalText | undefined {
  if (!tool?.describeForApproval || !valid) return undefined;
  try {
    const text = tool.describeForApproval(valid.data);
    return typeof text?.headline === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}
