import type { ModelSettings } from '../core/agent-spec';
import { defaultAgentName } from '../core/limits';
import type { ToolCall } from '../core/messages';

const maxSummaryChars = 80;

/** `read_file alpha.txt`: the tool name and its first string argument, as shown on the activity in the Web UI. */
export function toolCallSummary(call: ToolCall, parsedArguments?: unknown): string {
  const firstString =
    parsedArguments && typeof parsedArguments === 'object'
      ? Object.values(parsedArguments as Record<string, unknown>).find((value) => typeof value === 'string')
      : undefined;
  return clip(firstString ? `${call.name} ${String(firstString)}` : call.name);
}

/**
 * `openai:gpt-4o-mini turn 3`; `researcher · anthropic:claude-haiku-4-5 turn 2` for an agent other than the
 * default; `… turn 2 · thinking 2048` or `… · effort high` when the call may think (how much, never what).
 */
export function modelCallSummary(agent: { name: string; model: string; modelSettings?: ModelSettings }, iteration: number): string {
  const settings = agent.modelSettings ?? {};
  const thinking = [
    settings.thinkingBudget !== undefined && ` · thinking ${settings.thinkingBudget}`,
    settings.reasoningEffort !== undefined && ` · effort ${settings.reasoningEffort}`,
  ]
    .filter(Boolean)
    .join('');
  return `${agent.name === defaultAgentName ? '' : `${agent.name} · `}${agent.model} iteration ${iteration}${thinking}`;
}

export function clip(text: string, limit = maxSummaryChars): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > limit ? `${oneLine.slice(0, limit - 1)}…` : oneLine;
}
