import type { PendingApproval, TurnStatus } from './result';

/**
 * What a run publishes to its stream (@temporalio/workflow-streams, hosted by the
 * agent workflow itself, topic `agentStreamTopic`), in the order it happened.
 *
 * The workflow publishes the turn boundaries, each model reply's whole text and
 * the tool calls; the model activity publishes the text as it is written
 * (`text`, coalesced), only for runs started with `stream: true`, and `reset`
 * before the first text of a retried attempt: a subscriber then drops what it
 * holds of that call, since the new attempt writes it again from the start.
 * A model call's `reply` always follows its `text`, with the whole text.
 */
export type StreamEvent =
  /** A user message's turn begins (`turn` counts the run's messages from 1; a one-shot run has one). */
  | { type: 'turn_start'; turn: number }
  /** Text of model call `call` as it was written. */
  | { type: 'text'; call: string; text: string }
  /** Attempt `attempt` of model call `call` starts over: forget its text so far. */
  | { type: 'reset'; call: string; attempt: number }
  /** Model call `call` answered: its whole text, and the tools it asked for. */
  | { type: 'reply'; call: string; text: string; toolCalls: string[] }
  | { type: 'tool_start'; id: string; summary: string }
  /** A tool call's result, cut to `toolPreviewChars`. */
  | { type: 'tool_result'; id: string; summary: string; isError: boolean; preview: string }
  /** A tool call waits for a person: the request, with the description the person approves (this run's or a subagent's). */
  | ({ type: 'approval_requested' } & PendingApproval)
  /** A person (or the approval timeout) decided on call `id`. */
  | { type: 'approval_decided'; id: string; approved: boolean; reason?: string }
  /** The turn ended: its status and answer (`failed`: a session's turn that failed and was rolled back, `error` says why). */
  | { type: 'turn_end'; turn: number; status: TurnStatus | 'failed'; answer: string; error?: string };

export type StreamEventType = StreamEvent['type'];

/** The one topic a run publishes on. */
export const agentStreamTopic = 'agent';

/** How much of a tool result the stream shows: it is for watching, the conversation has the whole. */
export const toolPreviewChars = 200;

/** How long the model activity gathers text before publishing it: one signal (and one history event) per interval at most. */
export const textBatchMs = 200;

export function preview(text: string): string {
  return text.length <= toolPreviewChars ? text : `${text.slice(0, toolPreviewChars)}…`;
}
