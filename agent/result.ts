import type { Usage } from './messages';

/**
 * How a run ended.
 * - completed: the model answered without asking for tools.
 * - max_iterations: the iteration limit was reached; the answer is a final summary made without tools.
 * - truncated: the model's output was cut at its token limit (finish reason `length`).
 * - refused: the provider's content filter or the model's refusal stopped the answer.
 * - empty: the model replied with neither text nor tool calls twice in a row (the first time it is asked again).
 */
export type AgentStatus = 'completed' | 'max_iterations' | 'truncated' | 'refused' | 'empty';

export interface AgentResult {
  answer: string;
  status: AgentStatus;
  iterations: number;
  usage: Usage;
}

/** A step of a run, in the order it happened; the CLI prints these as progress. */
export type ProgressEvent =
  | { kind: 'model_turn'; turn: number; toolCalls: string[]; usage: Usage }
  | { kind: 'tool_done'; turn: number; summary: string; isError: boolean };

export interface AgentStatusSnapshot {
  phase: 'starting' | 'calling_model' | 'running_tools' | 'finished';
  iteration: number;
  maxIterations: number;
  toolCallsInFlight: string[];
  usage: Usage;
}
