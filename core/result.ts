import type { TimedWait } from './timed-wait';
import type { ObservedToolCall } from './eval-types';
import type { Usage } from './messages';
import type { TrippedGuardrail } from './guardrails';

/**
 * How a run ended.
 * - completed: the model answered without asking for tools.
 * - max_iterations: the iteration limit was reached; the answer is a final summary made without tools.
 * - truncated: the model's output was cut at its token limit (finish reason `length`).
 * - refused: the provider's content filter or the model's refusal stopped the answer.
 * - empty: the model replied with neither text nor tool calls twice in a row (the first time it is asked again).
 * - token_budget: the run's tokens exceeded maxSessionTokens.
 * - cost_budget: the next model call's worst case would have taken the spend past maxCostUsd; the run stopped before it.
 * - interrupted: `agent interrupt` ended the turn; the calls it cut short got "interrupted" results.
 * - guardrail_tripped: an input guardrail stopped the message, or an output guardrail the answer (`guardrail` says
 *   which and why); the turn is rolled back, and a session goes on.
 * - invalid_output: the agent has an outputSchema and its final answer still did not match it after being told what was wrong.
 * - ended: a session was ended by `agent end` (the endSession signal).
 * - idle_timeout: a session received no message within its idle timeout.
 */
export type TurnStatus =
  | 'completed'
  | 'max_iterations'
  | 'truncated'
  | 'refused'
  | 'empty'
  | 'token_budget'
  | 'cost_budget'
  | 'invalid_output'
  | 'interrupted'
  | 'guardrail_tripped';
export type AgentStatus = TurnStatus | 'ended' | 'idle_timeout';

export interface AgentResult {
  /** The last answer the model gave. */
  answer: string;
  status: AgentStatus;
  /** Model calls (iterations of the tool loop) over the whole run (every run of a session). */
  iterations: number;
  usage: Usage;
  /** User messages answered. */
  turns: number;
  /** The agent that gave the answer: the run's own, or the last one a handoff passed the conversation to. */
  agent: string;
  /** The answer parsed and checked against the agent's outputSchema, when it has one. */
  output?: unknown;
  /** The tool calls that answered the last user message, results clipped: only for runs started with `reportToolCalls` (evals). */
  toolCalls?: ObservedToolCall[];
  /** Status `guardrail_tripped`: the guardrail that tripped, and the reason a person sees. */
  guardrail?: TrippedGuardrail;
}

/** What a session's sendMessage update returns: the answer to that one message. */
export interface TurnReply {
  answer: string;
  status: TurnStatus;
  /** Model calls (iterations) this message took. */
  iterations: number;
  /** Tokens this message took (its subagents' included). */
  usage: Usage;
  /** The agent that gave the answer. */
  agent: string;
  /** The answer parsed and checked against the agent's outputSchema, when it has one. */
  output?: unknown;
  /** Status `guardrail_tripped`: the guardrail that tripped, and the reason a person sees. */
  guardrail?: TrippedGuardrail;
}

/**
 * What sendMessage (or awaitReply) returns when the run continued as new before
 * the message was answered: the next run answers it; ask it with awaitReply(ticket).
 * Client code (client/send-message.ts) follows this on its own.
 */
export interface PendingReply {
  status: 'pending';
  ticket: number;
}

export type MessageReply = TurnReply | PendingReply;

export function isPending(reply: MessageReply): reply is PendingReply {
  return reply.status === 'pending';
}

/** A tool call waiting for a person to approve it before it runs. */
export interface PendingApproval {
  /** The call id, prefixed with the subagent calls on the way when a subagent asked (`call_r/call_w`). */
  id: string;
  tool: string;
  /** One short line: the headline of `description` (`write_file "notes.txt" (12 bytes, 1 line)`), cut to 80 characters. */
  summary: string;
  /**
   * What the person approves, built from the arguments that will run (core/approval-description.ts): the headline,
   * then a preview; hidden characters escaped; anything clipped says so. Requests of older runs have only `summary`.
   */
  description?: string;
  /** The agents from the top-level run down to the one that asked. */
  agents: string[];
  /** When it was first asked (ISO 8601): the approval timeout runs from here, across continue-as-new. */
  askedAt: string;
  /**
   * What made it ask (core/approval-policy.ts): a rule of the approval policy by name, `needsApproval` (the tool's
   * own rule), `approveTools` (the agent's or the run's list) or `default` (the policy's default). Absent in older runs.
   */
  rule?: string;
  /** Set when the person's edited arguments asked again: the call now holds them (docs/policy.md). */
  edited?: boolean;
  /**
   * Set when the tool asks the person mid-call (core/tool-question.ts), not a policy before it runs: approving answers
   * (the arguments given, a JSON object of `schema`, are the answer), denying declines.
   */
  question?: { schema?: Record<string, unknown> };
}

/**
 * A decision on one call. `arguments`: the person approved the call with these arguments instead of the model's
 * (JSON text, an object): checked like the model's, asked again if a rule now asks, refused if one now refuses.
 */
export type ApprovalDecision = { approved: true; arguments?: string } | { approved: false; reason: string };

export interface AgentStatusSnapshot {
  phase:
    'starting' | 'calling_model' | 'running_tools' | 'awaiting_approval' | 'summarising' | 'waiting_for_message' | 'finished';
  /** The agent that has the conversation now. */
  agent: string;
  /**
   * Model calls over the whole run, every turn and every run of a session counted (the result's `iterations`). A
   * turn's own count, which `maxIterations` bounds, is its reply's `iterations` and the stream's `reply.iteration`.
   */
  iteration: number;
  /** The current (or last) turn: 1 in a one-shot run, the message being answered in a session; 0 before the first. */
  turn: number;
  /** Model calls of the current (or last) turn so far: docs/how-it-works.md's iteration, what the Web UI labels show. */
  turnIteration: number;
  /** Model calls of the agent that has the conversation since a handoff in this turn passed it on (none without one). */
  agentIteration?: number;
  /** The iteration limit of a turn for the agent that has the conversation. */
  maxIterations: number;
  toolCallsInFlight: string[];
  /** Tokens over the whole run, and in the current (or last) user turn. */
  usage: Usage;
  turnUsage: Usage;
  turns: number;
  /** User messages waiting for their turn (a session answers them in order). */
  queuedMessages: number;
  /** Tool calls waiting for approval, this run's and its subagents'. */
  pendingApprovals: PendingApproval[];
  /** Tool calls that wait on a durable timer or for an event (the time tools, time/): why, for what, and until when. */
  waits?: TimedWait[];
}
