import type { CarriedState, ValidAgentInput } from '../agent/input';
import { zeroUsage, type Message } from '../agent/messages';
import type { AgentStatusSnapshot, ProgressEvent } from '../agent/result';

/** Everything the workflow knows about a run; continue-as-new carries the durable part of it. */
export interface AgentState {
  messages: Message[];
  /** The transcript store id standing for messages[0..length), as the model activity last reported it. */
  transcript: { id?: string; length: number };
  summary?: { content: string; upTo: number };
  progress: ProgressEvent[];
  progressOffset: number;
  /** Everything the status query shows but the queue length, which the session loop owns. */
  status: Omit<AgentStatusSnapshot, 'queuedMessages'>;
  lastAnswer: string;
  /** Model calls in this run, for the continue-as-new bound. */
  modelCallsThisRun: number;
}

export function initialState(input: ValidAgentInput): AgentState {
  const carried = input.carried;
  return {
    messages: carried?.messages ?? initialMessages(input),
    transcript: carried?.transcript ?? { length: 0 },
    summary: carried?.summary,
    progress: [],
    progressOffset: carried?.progressOffset ?? 0,
    status: {
      phase: 'starting',
      iteration: carried?.iteration ?? 0,
      maxIterations: input.maxIterations,
      toolCallsInFlight: [],
      usage: carried?.usage ?? zeroUsage,
      turnUsage: zeroUsage,
      turns: carried?.turns ?? 0,
    },
    lastAnswer: carried?.lastAnswer ?? '',
    modelCallsThisRun: 0,
  };
}

export function carry(state: AgentState, turnIteration?: number): CarriedState {
  return {
    messages: state.messages,
    usage: state.status.usage,
    iteration: state.status.iteration,
    turns: state.status.turns,
    transcript: state.transcript,
    summary: state.summary,
    progressOffset: state.progressOffset + state.progress.length,
    turnIteration,
    lastAnswer: state.lastAnswer,
  };
}

function initialMessages(input: ValidAgentInput): Message[] {
  return [
    ...(input.systemPrompt ? [{ role: 'system' as const, content: input.systemPrompt }] : []),
    ...(input.messages ?? []),
    ...(input.prompt ? [{ role: 'user' as const, content: input.prompt }] : []),
  ];
}

/** The Web UI's current details: Markdown, refreshed at every step. */
export function describeStatus(input: ValidAgentInput, status: AgentStatusSnapshot): string {
  const lines = [
    `**${status.phase.replace(/_/g, ' ')}** · iteration ${status.iteration} of ${input.maxIterations} · model \`${input.model}\``,
    `tokens: ${status.usage.inputTokens} in / ${status.usage.outputTokens} out`,
  ];
  if (input.session) lines.push(`session: ${status.turns} message(s) answered, ${status.queuedMessages} queued`);
  if (status.toolCallsInFlight.length > 0) lines.push(`tools running: ${status.toolCallsInFlight.join(', ')}`);
  return lines.join('\n\n');
}
