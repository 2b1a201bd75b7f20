import type { z } from 'zod';
import { describeIssues, resolvedAgentInputSchema, type resolvedInputObject } from './input';
import type { BatchOption } from './batch-settings';
import { inputDefaults, resolveWithDefaults, type InputCheck } from './input-defaults';

export type { InputCheck } from './input-defaults';

/** The workflow's input as a caller may give it, before the checks fill in and fold anything. */
type ResolvedInputGiven = z.input<typeof resolvedInputObject>;
type LeftOutAtWill = keyof typeof inputDefaults.settings | keyof typeof inputDefaults.inside | 'agent';

/**
 * What a caller gives to start an agent: the workflow input with a default for every setting in
 * core/input-defaults.ts's table, and settings objects whose fields may be left out (`batch: true` for batch mode
 * with its defaults). A run that names no agent gets the `default` agent with the caller's settings (a model is then
 * required, and tools default to none), as runs always did. The run's model settings are `modelSettings`; the older
 * shape (`maxOutputTokens`, `thinkingBudget`, `reasoningEffort` one by one) is still accepted, and resolved into
 * modelSettings.
 */
export type AgentInput = Omit<ResolvedInputGiven, LeftOutAtWill> &
  Partial<Pick<ResolvedInputGiven, keyof typeof inputDefaults.settings | 'agent'>> & {
    approval?: Partial<NonNullable<ResolvedInputGiven['approval']>>;
    context?: Partial<ResolvedInputGiven['context']>;
    session?: Partial<NonNullable<ResolvedInputGiven['session']>>;
    batch?: BatchOption;
  };

/**
 * Checks a caller's input and fills in every default (core/input-defaults.ts), so the workflow receives explicit
 * settings; the check is the input's zod schema, the one the workflow's own check is generated from.
 */
export function resolveAgentInput(raw: unknown): InputCheck {
  return resolveWithDefaults(raw, (input) => {
    const parsed = resolvedAgentInputSchema.safeParse(input);
    return parsed.success ? { ok: true, input: parsed.data } : { ok: false, problems: describeIssues(parsed.error) };
  });
}
