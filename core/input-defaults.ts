import * as limits from './limits';
import { defaultBatchSettings } from './batch-settings';
import type { ResolvedAgentInput } from './input';
import { isRecord } from './is-record';

/**
 * Every default of a run's input, in one table, applied once, on the caller's side, by `resolveWithDefaults` below:
 * resolveAgentInput (core/resolve-input.ts: startAgent, the CLI) checks the result with the input's zod schema,
 * executeAgent (workflows/execute-agent.ts: workflow code, without zod) with the workflow's own check of the same
 * schema (core/input-check.ts). The run's input then records every setting, so a default changed here never changes
 * a run in flight (test/replay/replay.test.ts replays the corpus with every default changed). Free of zod.
 */
export const inputDefaults = {
  /** Settings a caller may leave out: filled in where the value is undefined. */
  settings: {
    maxConcurrentTools: limits.defaultMaxConcurrentTools,
    maxToolCallsPerReply: limits.defaultMaxToolCallsPerReply,
    modelTimeoutSeconds: limits.defaultModelTimeoutSeconds,
    maxSubagentDepth: limits.defaultMaxSubagentDepth,
    maxHandoffs: limits.defaultMaxHandoffs,
    stream: false,
  },
  /** Settings objects whose fields a caller may leave out; approval and context are there when left out, whole. */
  inside: {
    approval: { tools: [] as string[], skip: false, timeoutSeconds: limits.defaultApprovalTimeoutSeconds },
    context: { keepRecentTurns: limits.defaultKeepRecentTurns },
    session: { idleTimeoutSeconds: limits.defaultIdleTimeoutSeconds },
    // `batch: true` stands for all of these, `false` (or nothing) for no batch mode, an object for some of them.
    batch: defaultBatchSettings,
  },
  /** A run that names no agent gets the default agent with the caller's settings: a model, and no tools unless named. */
  noAgent: { agent: limits.defaultAgentName, tools: [] as string[], maxIterations: limits.defaultMaxIterations },
} as const;

/** The settings objects that are there, defaulted whole, when a caller leaves them out. */
const presentWhenLeftOut = new Set<string>(['approval', 'context']);

export const modelRequiredProblem = 'model: a model (provider:model) is required when no agent is named';

export type InputCheck = { ok: true; input: ResolvedAgentInput } | { ok: false; problems: string };

/**
 * A caller's input with every default filled in, then checked by `check` (the zod schema or the workflow's own
 * check). The caller's object is left as it was. Anything that is not a plain object goes to the check as it is, to
 * be refused there; so does a setting of the wrong type (null, a string), which no default replaces.
 */
export function resolveWithDefaults(raw: unknown, check: (input: unknown) => InputCheck): InputCheck {
  if (!isRecord(raw)) return check(raw);
  const input: Record<string, unknown> = { ...raw };
  for (const [name, value] of Object.entries(inputDefaults.settings)) fill(input, name, value);
  if (input.batch === true) input.batch = {};
  else if (input.batch === false) delete input.batch;
  for (const [name, defaults] of Object.entries(inputDefaults.inside)) {
    if (input[name] === undefined && presentWhenLeftOut.has(name)) input[name] = {};
    input[name] = withDefaultsInside(input[name], defaults);
  }
  const namedNoAgent = input.agent === undefined;
  if (namedNoAgent) for (const [name, value] of Object.entries(inputDefaults.noAgent)) fill(input, name, value);
  const checked = check(input);
  if (checked.ok && namedNoAgent && checked.input.model === undefined) return { ok: false, problems: modelRequiredProblem };
  return checked;
}

/** A copy of a settings object with its own defaults filled in; anything else as it is, for the check to refuse. */
function withDefaultsInside(value: unknown, defaults: object): unknown {
  if (!isRecord(value)) return value;
  const copy = { ...value };
  for (const [key, fallback] of Object.entries(defaults)) fill(copy, key, Array.isArray(fallback) ? [...fallback] : fallback);
  return copy;
}

function fill(target: Record<string, unknown>, key: string, value: unknown): void {
  if (target[key] === undefined) target[key] = Array.isArray(value) ? [...value] : value;
}
