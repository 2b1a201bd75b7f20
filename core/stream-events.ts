import type { PendingApproval, TurnStatus } from './result';
import type { Usage } from './usage';
import type { TrippedGuardrail } from './guardrails';
import type { TimedWait } from './timed-wait';

/**
 * What a run publishes to its stream (@temporalio/workflow-streams, hosted by the
 * agent workflow itself, topic `agentStreamTopic`), in the order it happened: the
 * one vocabulary of a run's story. The CLI (`agent run`, `chat`, `watch`) and every
 * other client render these; the status query is a snapshot, not a story.
 *
 * The workflow publishes the turn boundaries, each model reply whole with its
 * usage, the tool calls and results, approvals and handoffs; the model activity
 * publishes the text as it is written (`text`, coalesced), only for runs started
 * with `stream: true`, and `reset` before the first text of a retried attempt: a
 * subscriber then drops what it holds of that call, since the new attempt writes
 * it again from the start. A model call's `reply` always follows its `text`.
 *
 * Since 0.3 the model's thinking is told too, as its text is: whole in the reply (`thinking`, what the provider let
 * us read; redacted thinking never), and as `thinking` events while it is written, for runs with `stream: true` whose
 * provider streams it (Anthropic). Tool calls carry their name and their arguments, bounded
 * (core/stream-tool-input.ts).
 *
 * Since 0.4 a model call that failed and will be tried again says so as it happens (`model_retry`), published by
 * the failed attempt itself (activities/model/retry-notice.ts), for every run: a run whose model endpoint cannot be
 * reached is no longer silent until its last attempt.
 *
 * Since 0.5 a steering message the turn in progress took is told (`steered`), where it joined the turn.
 *
 * Since 0.6 a turn a guardrail stopped ends with status `guardrail_tripped`, its `turn_end` naming the guardrail and
 * the reason (docs/guardrails.md). An agent with output guardrails streams no `text`: each reply without tool calls
 * is published whole once its output guardrails passed it.
 *
 * Since 0.7 a tool call that waits in the workflow (`sleep`, `wait_until`, `wait_for_event`: docs/time.md) says what it
 * waits for and until when (`waiting`), once its wait begins (again in the next run, when the wait is carried across
 * continue-as-new); its `tool_result` ends it.
 *
 * Events a run carried over from an older version of this code may lack the
 * fields marked "since 0.2" or "since 0.3"; renderers treat them as unknown.
 *
 * A new agent event is rendered in 4 files, and `tsc` names each of them (their switch over `type` ends in
 * `const _exhaustive: never = event`) and no other: the chat's UI message stream (web/ui-message-chunks.ts), AG-UI
 * (web/ag-ui-events.ts), the MCP server's progress (serve/mcp/progress.ts) and the CLI's renderer for `run`, `chat`
 * and `watch` (cli/stream-renderer.ts). With its declaration here and the line that publishes it (in workflows/ or
 * activities/model/), which no compiler can ask for, it touches 6 files. A new eval event (EvalEvent, below) is
 * declared here, named in `evalEventTypes`, published by evals/workflow/eval-workflow.ts and rendered by the CLI
 * alone (cli/stream-renderer.ts): no chat's translator knows eval events.
 */
export type AgentEvent =
  /** A user message's turn begins (`turn` counts the run's messages from 1; a one-shot run has one); `agent` has the conversation (since 0.2). */
  | { type: 'turn_start'; turn: number; agent?: string }
  /** Text of model call `call` as it was written. */
  | { type: 'text'; call: string; text: string }
  /** Thinking of model call `call` as it was written (since 0.3): parts of the reply's `thinking`, in order. */
  | { type: 'thinking'; call: string; text: string }
  /** Attempt `attempt` of model call `call` starts over: forget its text (and thinking) so far. */
  | { type: 'reset'; call: string; attempt: number }
  /**
   * Attempt `attempt` of a model call failed and Temporal tries again (since 0.4): the model, the host its provider
   * was called at (host and port only: never the URL's path, query or credentials), the error as the provider gave it
   * (`Connection error.`, `HTTP 503: overloaded`), and the wait before the next attempt when it is known. `call` is set
   * for runs that stream their text (the call a following `reset` starts over).
   */
  | {
      type: 'model_retry';
      call?: string;
      model: string;
      attempt: number;
      host: string;
      error: string;
      retryInMs?: number;
    }
  /**
   * Model call `call` answered: its whole text and the tools it asked for; since 0.2 also the iteration (model calls
   * of this turn, from 1), the agent and model that answered, its usage (with `costUsd` when priced) and whether it
   * carried thinking; since 0.3 the thinking's text (the readable parts joined by a blank line; absent when the
   * model did not think or its thinking was all redacted or hidden).
   */
  | {
      type: 'reply';
      call: string;
      text: string;
      toolCalls: string[];
      iteration?: number;
      agent?: string;
      model?: string;
      usage?: Usage;
      thought?: true;
      thinking?: string;
    }
  /**
   * A tool call starts: its one-line summary; since 0.3 the tool's name and its arguments as the stream shows them
   * (streamToolInput: strings cut, depth and size bounded, hidden characters made visible).
   */
  | {
      type: 'tool_start';
      id: string;
      summary: string;
      name?: string;
      input?: unknown;
      /** The approval policy's rule that let it run without a person (core/approval-policy.ts); absent when none decided. */
      rule?: string;
    }
  /** A tool call's result, cut to `toolPreviewChars`; `rule`: the approval policy's rule that refused it. */
  | {
      type: 'tool_result';
      id: string;
      summary: string;
      isError: boolean;
      preview: string;
      /** The approval policy's rule that refused the call. */
      rule?: string;
      /** The tool-call guardrail that refused it (since 0.7). */
      guardrail?: string;
    }
  /** A tool call waits for a person: the request, with the description the person approves (this run's or a subagent's). */
  | ({
      type: 'approval_requested';
      /** The call's arguments, bounded as on tool_start (since 0.3; a subagent's request forwarded up has none). */
      input?: unknown;
    } & PendingApproval)
  /** A person (or the approval timeout) decided on call `id`. */
  | {
      type: 'approval_decided';
      id: string;
      approved: boolean;
      reason?: string;
      /** The approval policy's rule that asked (the request's `rule`). */
      rule?: string;
      /** The person changed the call's arguments before approving it: the call ran with theirs (docs/policy.md). */
      edited?: boolean;
    }
  /**
   * A steering message joined turn `turn` (since 0.5): a person's message the turn took at its next iteration, after
   * `iteration` model calls and their tool results, before the next call. `text` is the message, cut to
   * `steeringPreviewChars` (the conversation has it whole).
   */
  | { type: 'steered'; turn: number; iteration: number; text: string }
  /** The model handed the conversation from one agent to another (since 0.2). */
  | { type: 'handoff'; from: string; to: string }
  /** Tool call `callId` waits (since 0.7): on a timer until `until`, or for `event` at most until `until`, for `reason`. */
  | ({ type: 'waiting' } & TimedWait)
  /**
   * The turn ended: its status and answer (`failed`: a session's turn that failed and was rolled back, `error` says
   * why); since 0.2 also its model calls (`iterations`) and its usage, cost included.
   */
  | {
      type: 'turn_end';
      turn: number;
      status: TurnStatus | 'failed';
      answer: string;
      error?: string;
      iterations?: number;
      usage?: Usage;
      /** Status `guardrail_tripped` (since 0.6): the guardrail that tripped, and the reason a person sees. */
      guardrail?: TrippedGuardrail;
    };

/**
 * What an eval (evals/workflow/, `agent eval`, runEval) publishes to its own stream, since 0.5: a pair (a case
 * answered by a candidate, or the recorded baseline graded) starting and ending with its score, and the eval ending.
 * The eval's stream carries these only: its child runs tell their own stories (AgentEvent) on their own streams
 * (`agent watch <eval id>/<case>/<candidate>`), which the eval does not relay.
 */
export type EvalEvent =
  /**
   * An eval started a pair (since 0.5): case `case` answered by candidate `candidate` in child run `workflowId`; the
   * recorded baseline (`recorded`) has no run (`workflowId` empty), it is graded only.
   */
  | { type: 'eval_pair_start'; case: string; candidate: string; workflowId: string }
  /** An eval's pair was answered and graded (since 0.5): the run's status, its score (0 to 1), whether it passed, what it cost. */
  | {
      type: 'eval_pair_end';
      case: string;
      candidate: string;
      status: string;
      score: number;
      pass: boolean;
      costUsd?: number;
      error?: string;
    }
  /** The eval ended (since 0.5): pairs answered, and the pairs the money budget left unrun. */
  | { type: 'eval_end'; pairs: number; notRun: number; stopped?: 'budget' };

/**
 * Whatever a stream of ours carries: a run's (AgentEvent) or an eval's (EvalEvent). Only `agent watch`, which follows
 * either by id, takes both; every chat's translator takes AgentEvent.
 */
export type StreamEvent = AgentEvent | EvalEvent;

export type StreamEventType = StreamEvent['type'];

/** Every eval event's type: a table, so that a new eval event must be named here (and nowhere an agent's is told). */
const evalEventTypes: Record<EvalEvent['type'], true> = { eval_pair_start: true, eval_pair_end: true, eval_end: true };

/** Whether `event` is an eval's (for `agent watch`, which follows a run's stream or an eval's). */
export function isEvalEvent(event: StreamEvent): event is EvalEvent {
  return Object.hasOwn(evalEventTypes, event.type);
}

/** The one topic a run publishes on. */
export const agentStreamTopic = 'agent';

/** How much of a tool result the stream shows: it is for watching, the conversation has the whole. */
export const toolPreviewChars = 200;

/** How much of a steering message the stream shows (a message may be far longer: the conversation has the whole). */
export const steeringPreviewChars = 1000;

/** How long the model activity gathers text before publishing it: one signal (and one history event) per interval at most. */
export const textBatchMs = 200;

export function preview(text: string): string {
  return text.length <= toolPreviewChars ? text : `${text.slice(0, toolPreviewChars)}…`;
}

/** Separates two thinking blocks of one reply in its `thinking` text, and in the `thinking` events that stream it. */
export const thinkingSeparator = '\n\n';

/** What a reply lets us read of the model's thinking: its readable parts' text; redacted parts never. */
export function readableThinking(parts: ReadonlyArray<{ type: string; text?: string }> | undefined): string {
  return (parts ?? []).flatMap((part) => (part.type === 'thinking' && part.text ? [part.text] : [])).join(thinkingSeparator);
}
