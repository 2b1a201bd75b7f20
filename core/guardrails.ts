/**
 * Guardrails as the workflow runs them: plain data recorded in the agent's spec when a run starts (prepareRun), so a
 * run keeps the guardrails it started with. The values a user defines (with their check functions) stay on the
 * worker: agents/define-guardrail.ts.
 */

/**
 * What a guardrail checks: the person's message (or a steering message) before the model sees it, the final answer,
 * or each tool call before it runs (`tool_call`, since 0.7).
 */
export type GuardrailStage = 'input' | 'output' | 'tool_call';

/**
 * What a tripped tool-call guardrail does: refuse that call, whose error result gives the model the reason and the
 * turn goes on (`refuse_call`, the default), or end the turn with status `guardrail_tripped`, as an input or output
 * guardrail does (`end_turn`).
 */
export type ToolCallTrip = 'refuse_call' | 'end_turn';

/** A tool call as a tool-call guardrail checks it: the tool's name and the arguments that would run. */
export interface GuardedToolCall {
  name: string;
  arguments: unknown;
}

/** A guardrail as recorded in an agent's spec. */
export interface GuardrailSpec {
  name: string;
  checks: GuardrailStage;
  /** A model guardrail: the registered agent whose structured output (`{ tripped, reason }`) is the verdict. Absent: code. */
  agent?: string;
  /** An input guardrail that runs beside the turn's first model call (whose reply is held until it passed), not before it. */
  parallel?: boolean;
  /** A tool-call guardrail: what it does when it trips (absent: `refuse_call`). */
  onTrip?: ToolCallTrip;
  /** A code guardrail's activity: the longest one attempt may take (Temporal's duration format) and its attempts. */
  timeout?: string | number;
  maximumAttempts?: number;
}

/** What a guardrail decides: trip (and why, in words for the person), or let the text through. */
export interface GuardrailVerdict {
  tripped: boolean;
  reason?: string;
}

/** The guardrail that ended a turn, and the reason the person sees. */
export interface TrippedGuardrail {
  name: string;
  reason: string;
}

/** What the one guardrail activity (`checkGuardrail`) gets: the guardrail by name and the text it checks. */
export interface GuardrailCheckInput {
  guardrail: string;
  /** The agent that has the conversation. */
  agent: string;
  checks: GuardrailStage;
  text: string;
  /** An input guardrail: whether the text is a steering message (one sent while the turn ran). */
  steering?: boolean;
  /** An output guardrail of an agent with an outputSchema: the parsed output. */
  output?: unknown;
  /** A tool-call guardrail: the call it checks. */
  toolCall?: GuardedToolCall;
}

// A reason is shown to a person and recorded in history: bounded, like any text the engine did not write itself.
export const maxGuardrailReasonChars = 1_000;

/**
 * The verdict a guardrail returned (a check function's value, or a model guardrail's structured output), checked:
 * anything but `{ tripped: boolean, reason?: string }` is a guardrail that does not work, and trips (fail closed).
 */
export function readVerdict(name: string, value: unknown): TrippedGuardrail | undefined {
  const verdict = value as Partial<GuardrailVerdict> | null;
  if (typeof verdict !== 'object' || verdict === null || typeof verdict.tripped !== 'boolean') {
    return { name, reason: `guardrail "${name}" gave no verdict ({ tripped: boolean, reason? }), so it counts as tripped` };
  }
  if (!verdict.tripped) return undefined;
  const reason = typeof verdict.reason === 'string' && verdict.reason.trim() ? verdict.reason.trim() : 'no reason given';
  return { name, reason: boundedReason(reason) };
}

/** A guardrail that could not decide (it threw after its retries, or its model run failed): it trips, with the reason. */
export function failedClosed(name: string, problem: string): TrippedGuardrail {
  return { name, reason: boundedReason(`guardrail "${name}" failed, so it counts as tripped: ${problem}`) };
}

/** What the model reads in place of a call a tool-call guardrail refused. */
export function guardrailRefusalText(tripped: TrippedGuardrail): string {
  return `not run: refused by the guardrail "${tripped.name}": ${tripped.reason}`;
}

/** What the model reads for a call not run because a tool-call guardrail ended the turn. */
export function guardrailEndedTurnText(tripped: TrippedGuardrail): string {
  return `not run: the guardrail "${tripped.name}" ended the turn`;
}

function boundedReason(reason: string): string {
  return reason.length > maxGuardrailReasonChars ? `${reason.slice(0, maxGuardrailReasonChars)}…` : reason;
}
