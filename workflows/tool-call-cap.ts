import type { ResolvedAgentInput } from '../core/input';
import type { ToolCall } from '../core/messages';

/**
 * How many of one reply's tool calls run. A reply may ask for thousands (one
 * asked for 18,000, and Temporal terminated the session at its event limit): the
 * calls beyond the cap get "not run" results, which cost no history events. The
 * cap is resolved on the client (defaultMaxToolCallsPerReply) and recorded in
 * the run's input; a run started before the setting existed ran every call, and
 * still does, so that its history replays.
 */
export function maxToolCallsPerReply(input: ResolvedAgentInput): number {
  return input.maxToolCallsPerReply ?? Number.MAX_SAFE_INTEGER;
}

/** The calls of a reply beyond the cap, which do not run, and the reason their results give. */
export function callsBeyondCap(calls: ToolCall[], cap: number): { beyond: ToolCall[]; reason: string } {
  return {
    beyond: calls.length > cap ? calls.slice(cap) : [],
    reason: `the reply asked for ${calls.length} tool calls and at most ${cap} run per reply; ask again for what is still needed`,
  };
}
