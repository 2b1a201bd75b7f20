import { checkResolvedInput } from './input-check';
import { resolveWithDefaults, type InputCheck } from './input-defaults';

/**
 * resolveAgentInput (core/resolve-input.ts) for workflow code: the same defaults (core/input-defaults.ts) and the
 * same verdict, checked as the workflow checks its input (core/input-check.ts) instead of with zod, so that
 * `durable-agent/workflow`'s executeAgent keeps zod out of its users' workflow bundles (bench/NOTES.md, "zod in a
 * workflow bundle", has the numbers). test/unit/resolve-input-without-zod.test.ts holds the two to the same output.
 */
export function resolveAgentInputWithoutZod(raw: unknown): InputCheck {
  return resolveWithDefaults(raw, checkResolvedInput);
}
