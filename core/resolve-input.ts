import { z } from 'zod';
import { contextSettingsSchema, describeIssues, requiresSomethingToAnswer, resolvedInputObject, somethingToAnswer, type ResolvedAgentInput } from './input';
import { defaultIdleTimeoutSeconds, defaultKeepRecentTurns, defaultMaxConcurrentTools, defaultMaxIterations, defaultModelTimeoutSeconds } from './limits';

/**
 * What a caller gives to start an agent: the workflow input with defaults for
 * everything but the model, the workspace and something to answer. Resolved
 * once, on the client (startAgent, the CLI), into the explicit input the
 * workflow receives; the workflow itself never applies a default.
 */
const shape = resolvedInputObject.shape;
export const agentInputSchema = resolvedInputObject
  .extend({
    tools: shape.tools.default([]),
    maxIterations: shape.maxIterations.default(defaultMaxIterations),
    maxConcurrentTools: shape.maxConcurrentTools.default(defaultMaxConcurrentTools),
    modelTimeoutSeconds: shape.modelTimeoutSeconds.default(defaultModelTimeoutSeconds),
    session: z
      .object({ idleTimeoutSeconds: z.number().int().min(1).max(30 * 24 * 3600).default(defaultIdleTimeoutSeconds) })
      .optional(),
    context: contextSettingsSchema
      .extend({ keepRecentTurns: contextSettingsSchema.shape.keepRecentTurns.default(defaultKeepRecentTurns) })
      .default({ keepRecentTurns: defaultKeepRecentTurns }),
  })
  .refine(requiresSomethingToAnswer, somethingToAnswer);

/** The input a caller writes: settings with defaults may be left out. */
export type AgentInput = z.input<typeof agentInputSchema>;

export type InputCheck = { ok: true; input: ResolvedAgentInput } | { ok: false; problems: string };

/** Checks a caller's input and fills in every default, so the workflow receives explicit settings. */
export function resolveAgentInput(raw: unknown): InputCheck {
  const parsed = agentInputSchema.safeParse(raw);
  return parsed.success ? { ok: true, input: parsed.data } : { ok: false, problems: describeIssues(parsed.error) };
}
