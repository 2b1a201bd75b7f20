import type { ToolCall } from '../../core/messages';
import type { Tool } from '../../tools';

/**
 * The calls of a reply that a person must approve before they run, by the
 * tools' own `needsApproval`. Decided here, in the activity, once, with the
 * arguments the model gave: the answer is recorded in history with the reply,
 * so replay never runs a tool's function again. A call whose arguments the tool
 * would refuse anyway needs no approval; a `needsApproval` function that throws
 * asks for it, to be safe.
 */
export function callsNeedingApproval(calls: ToolCall[], tools: Map<string, Tool>): string[] {
  return calls.flatMap((call) => {
    const rule = tools.get(call.name)?.needsApproval;
    if (rule === undefined || rule === false) return [];
    if (rule === true) return [call.id];
    let parsed: unknown;
    try {
      parsed = JSON.parse(call.arguments || '{}');
    } catch {
      return [];
    }
    const input = tools.get(call.name)!.input.safeParse(parsed);
    if (!input.success) return [];
    try {
      return rule(input.data) ? [call.id] : [];
    } catch {
      return [call.id];
    }
  });
}
