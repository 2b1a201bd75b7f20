import type { ModelSettings } from '../core/agent-spec';
import { defaultAgentName } from '../core/limits';
import type { ToolCall } from '../core/messages';
import { visible } from '../core/visible-text';
import { cutInTheMiddle, workspaceRelativePath } from '../core/workspace-path';

const maxSummaryChars = 80;

/**
 * `read_file alpha.txt`: the tool name and what it acts on, as shown on the activity in the Web UI. That is its path
 * argument when it has one (`shown.paths`, from the run's setup, else one named `path`), resolved against the
 * workspace and shortened in its middle (core/workspace-path.ts: never the file's name cut off); else its first string
 * argument in key order sorted (never the model's order, which would let it put a harmless value first); characters
 * that hide text are escaped.
 */
export function toolCallSummary(
  call: ToolCall,
  parsedArguments?: unknown,
  shown: { paths: string[]; workspace?: string } = { paths: [] },
): string {
  const args = parsedArguments && typeof parsedArguments === 'object' ? (parsedArguments as Record<string, unknown>) : {};
  const pathName = [...shown.paths, 'path'].find((name) => typeof args[name] === 'string');
  if (pathName !== undefined) {
    const room = maxSummaryChars - call.name.length - 1;
    return `${call.name} ${cutInTheMiddle(visible(workspaceRelativePath(args[pathName] as string, shown.workspace)).replace(/\s/g, ' '), room)}`;
  }
  const target = Object.keys(args)
    .sort()
    .map((key) => args[key])
    .find((value): value is string => typeof value === 'string');
  return clip(visible(target !== undefined ? `${call.name} ${target}` : call.name));
}

/** Where a model call stands: its iteration within the turn (docs/how-it-works.md), and the turn's number where a run has several. */
export interface ModelCallPosition {
  iteration: number;
  /** A session's turn (the message answered); left out for a one-shot run, which has one. */
  turn?: number;
}

/**
 * `openai:gpt-4o-mini iteration 2` in a one-shot run; `openai:gpt-4o-mini turn 3 · iteration 1` in a session;
 * `researcher · anthropic:claude-haiku-4-5 iteration 2` for an agent other than the default; `… · thinking 2048`
 * or `… · effort high` when the call may think (how much, never what). The iteration counts within the turn.
 */
export function modelCallSummary(
  agent: { name: string; model: string; modelSettings?: ModelSettings },
  position: ModelCallPosition,
): string {
  const settings = agent.modelSettings ?? {};
  const thinking = [
    settings.thinkingBudget !== undefined && ` · thinking ${settings.thinkingBudget}`,
    settings.reasoningEffort !== undefined && ` · effort ${settings.reasoningEffort}`,
  ]
    .filter(Boolean)
    .join('');
  const turn = position.turn === undefined ? '' : ` turn ${position.turn} ·`;
  return `${agent.name === defaultAgentName ? '' : `${agent.name} · `}${agent.model}${turn} iteration ${position.iteration}${thinking}`;
}

/**
 * `prepare agent default`, `prepare agent researcher · openai:gpt-4o-mini` when the run names its own model: the
 * setup activity (the agent's definition checked, with the run's overrides).
 */
export function prepareRunSummary(agent: string, model?: string): string {
  return clip(visible(`prepare agent ${agent}${model ? ` · ${model}` : ''}`));
}

export function clip(text: string, limit = maxSummaryChars): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > limit ? `${oneLine.slice(0, limit - 1)}…` : oneLine;
}
