import type { Duration } from '@temporalio/common';
import { ConfigurationError } from '../core/errors';
import type { GuardedToolCall, GuardrailStage, GuardrailVerdict, ToolCallTrip } from '../core/guardrails';
import type { Agent } from './define-agent';

/** What a code guardrail's check gets: the text, the agent that has the conversation, and (output) the parsed output. */
export interface GuardrailInput {
  text: string;
  agent: string;
  checks: GuardrailStage;
  /** An input guardrail: the text is a steering message, sent while the turn ran. */
  steering: boolean;
  /** An output guardrail of an agent with an outputSchema: the answer parsed. */
  output?: unknown;
  /** A tool-call guardrail: the call (`text` is its name and arguments as canonical JSON). */
  toolCall?: GuardedToolCall;
}

/** The activity a code guardrail runs in: its timeout and attempts (a check that still throws trips the guardrail). */
export interface GuardrailActivitySettings {
  timeout: Duration;
  maximumAttempts: number;
}

/**
 * A guardrail: registered on the worker like a tool, attached to agents by value or by name (defineAgent's
 * `guardrails`). An input guardrail checks each person's message (and steering message) before the model sees it; an
 * output guardrail checks the final answer before anyone sees it; a tool-call guardrail checks each tool call just
 * before it runs. A tripped guardrail ends the turn with status `guardrail_tripped` and its reason (a tool-call one
 * refuses only its call, unless its `onTrip` is `end_turn`); the session goes on.
 */
export interface Guardrail {
  readonly kind: 'guardrail';
  name: string;
  description: string;
  checks: GuardrailStage;
  /** A code guardrail: runs in the `checkGuardrail` activity. */
  check?: (input: GuardrailInput) => GuardrailVerdict | Promise<GuardrailVerdict>;
  /** A model guardrail: the agent (its outputSchema gives `{ tripped, reason }`) that judges the text in a child run. */
  agent?: Agent | string;
  /** An input guardrail that runs beside the turn's first model call, whose reply is held until it passed. */
  runInParallel: boolean;
  /** A tool-call guardrail: refuse the call (default) or end the turn when it trips. */
  onTrip?: ToolCallTrip;
  activity: GuardrailActivitySettings;
}

export interface GuardrailDefinition {
  name: string;
  description?: string;
  checks: GuardrailStage;
  /** Code: return `{ tripped: true, reason }` to stop the text; throwing (after the activity's retries) trips too. */
  check?: (input: GuardrailInput) => GuardrailVerdict | Promise<GuardrailVerdict>;
  /** Or a model: an agent whose outputSchema is `{ tripped: boolean, reason: string }`, given the text as its task. */
  agent?: Agent | string;
  /**
   * An input guardrail only: start it with the turn's first model call instead of before it, to save its latency. The
   * model's reply is held (its text is not streamed) until the guardrail passed; when it trips, the reply is dropped
   * (what it cost still counts). Default: before.
   */
  runInParallel?: boolean;
  /**
   * A tool-call guardrail only: what a trip does. `refuse_call` (the default): that call is not run, and its error
   * result gives the model the reason; the turn goes on. `end_turn`: the turn ends with status `guardrail_tripped`
   * and is rolled back, as for an input or output guardrail.
   */
  onTrip?: ToolCallTrip;
  activity?: Partial<GuardrailActivitySettings>;
}

// A guardrail's name is shown with its reason and recorded in history: words, dots and dashes.
const guardrailNamePattern = /^[a-zA-Z0-9_.-]{1,64}$/;

const defaultActivitySettings: GuardrailActivitySettings = { timeout: '30s', maximumAttempts: 3 };

/** Defines a guardrail: a check function (code) or an agent (model), and whether it checks input or output. */
export function defineGuardrail(definition: GuardrailDefinition): Guardrail {
  const problem = (text: string) => new ConfigurationError(`guardrail "${definition.name}": ${text}`);
  if (!guardrailNamePattern.test(definition.name)) throw problem(`the name must match ${guardrailNamePattern}`);
  if (!['input', 'output', 'tool_call'].includes(definition.checks))
    throw problem("checks must be 'input', 'output' or 'tool_call'");
  if (definition.onTrip !== undefined && definition.checks !== 'tool_call')
    throw problem('onTrip is for a tool_call guardrail only');
  if (definition.onTrip !== undefined && definition.onTrip !== 'refuse_call' && definition.onTrip !== 'end_turn')
    throw problem("onTrip must be 'refuse_call' or 'end_turn'");
  const hasCheck = definition.check !== undefined;
  const hasAgent = definition.agent !== undefined;
  if (hasCheck === hasAgent) throw problem('give it either a check function (code) or an agent (model), not both');
  if (hasCheck && typeof definition.check !== 'function') throw problem('check must be a function');
  const runInParallel = definition.runInParallel ?? false;
  if (typeof runInParallel !== 'boolean') throw problem('runInParallel must be true or false');
  if (runInParallel && definition.checks !== 'input') throw problem('only an input guardrail can run in parallel with the model');
  const activity = { ...defaultActivitySettings, ...definition.activity };
  if (!Number.isInteger(activity.maximumAttempts) || activity.maximumAttempts < 1)
    throw problem('activity.maximumAttempts must be a positive whole number');
  return {
    kind: 'guardrail',
    name: definition.name,
    description: definition.description ?? '',
    checks: definition.checks,
    runInParallel,
    ...(definition.checks === 'tool_call' && { onTrip: definition.onTrip ?? 'refuse_call' }),
    ...(hasCheck && { check: definition.check }),
    ...(hasAgent && { agent: definition.agent }),
    activity,
  };
}

export function isGuardrail(value: unknown): value is Guardrail {
  return typeof value === 'object' && value !== null && (value as Guardrail).kind === 'guardrail';
}
