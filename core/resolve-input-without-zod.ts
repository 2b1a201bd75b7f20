import { checkResolvedInput } from './input-check';
import * as limits from './limits';
import { defaultBatchSettings } from './batch-settings';
import type { InputCheck } from './resolve-input';

/**
 * resolveAgentInput (core/resolve-input.ts) for workflow code: the same defaults and the same
 * verdict, without zod, so that `durable-agent/workflow`'s executeAgent keeps zod out of its
 * users' workflow bundles (BENCHMARKS.md, "zod in a workflow bundle", has the numbers). The
 * defaults are filled in as zod's `.default()` fills them (only where a value is undefined),
 * then the result is checked as the workflow checks its input (core/input-check.ts).
 * test/unit/resolve-input-without-zod.test.ts holds it to resolveAgentInput on over a thousand inputs.
 */
export function resolveAgentInputWithoutZod(raw: unknown): InputCheck {
  if (!isPlainObject(raw)) return checkResolvedInput(raw);
  const input: Record<string, unknown> = { ...raw };
  fill(input, 'maxConcurrentTools', limits.defaultMaxConcurrentTools);
  fill(input, 'maxToolCallsPerReply', limits.defaultMaxToolCallsPerReply);
  fill(input, 'modelTimeoutSeconds', limits.defaultModelTimeoutSeconds);
  fill(input, 'maxSubagentDepth', limits.defaultMaxSubagentDepth);
  fill(input, 'maxHandoffs', limits.defaultMaxHandoffs);
  fill(input, 'stream', false);
  // batch: true stands for every default setting, false (or nothing) for no batch mode, an object for some settings.
  if (input.batch === true) input.batch = { ...defaultBatchSettings };
  else if (input.batch === false) delete input.batch;
  else input.batch = withDefaultsInside(input.batch, { ...defaultBatchSettings });
  // approval and context, when left out, are objects of their own defaults (null is refused, as zod refuses it).
  input.approval = withDefaultsInside(input.approval === undefined ? {} : input.approval, {
    tools: [],
    skip: false,
    timeoutSeconds: limits.defaultApprovalTimeoutSeconds,
  });
  input.session = withDefaultsInside(input.session, { idleTimeoutSeconds: limits.defaultIdleTimeoutSeconds });
  input.context = withDefaultsInside(input.context === undefined ? {} : input.context, {
    keepRecentTurns: limits.defaultKeepRecentTurns,
  });
  // A run that names no agent gets the default agent with the caller's settings: a model, and no tools unless named.
  const namedNoAgent = input.agent === undefined;
  if (namedNoAgent) {
    input.agent = limits.defaultAgentName;
    fill(input, 'tools', []);
    fill(input, 'maxIterations', limits.defaultMaxIterations);
  }
  const check = checkResolvedInput(input);
  if (check.ok && namedNoAgent && check.input.model === undefined) {
    return { ok: false, problems: 'model: a model (provider:model) is required when no agent is named' };
  }
  return check;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of a settings object with its own defaults filled in; anything else as it is, for the check to refuse. */
function withDefaultsInside(value: unknown, defaults: Record<string, unknown>): unknown {
  if (!isPlainObject(value)) return value;
  const copy = { ...value };
  for (const [key, fallback] of Object.entries(defaults)) fill(copy, key, fallback);
  return copy;
}

function fill(target: Record<string, unknown>, key: string, value: unknown): void {
  if (target[key] === undefined) target[key] = value;
}
