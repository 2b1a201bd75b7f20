import { z } from 'zod';
import {
  batchOptionSchema,
  contextSettingsSchema,
  describeIssues,
  refuseSettingsGivenTwice,
  resolvedInputObject,
  type ResolvedAgentInput,
} from './input';
import { withSettingsFolded } from './model-settings';
import { batchSessionProblem, resolveBatchOption } from './batch-settings';
import { requiresSomethingToAnswer, somethingToAnswer } from './something-to-answer';
import {
  defaultAgentName,
  defaultApprovalTimeoutSeconds,
  defaultIdleTimeoutSeconds,
  defaultKeepRecentTurns,
  defaultMaxConcurrentTools,
  defaultMaxToolCallsPerReply,
  defaultMaxHandoffs,
  defaultMaxIterations,
  defaultMaxSubagentDepth,
  defaultModelTimeoutSeconds,
} from './limits';

/**
 * What a caller gives to start an agent: the workflow input with defaults for
 * every run setting. Resolved once, on the client (startAgent, the CLI), into
 * the explicit input the workflow receives; the workflow itself never applies a
 * default. A run that names no agent gets the `default` agent with the caller's
 * settings (a model is then required, and tools default to none), as runs always did.
 * The run's model settings are `modelSettings`; the older shape (`maxOutputTokens`, `thinkingBudget`,
 * `reasoningEffort` one by one) is still accepted, and resolved into modelSettings.
 */
const shape = resolvedInputObject.shape;
export const agentInputSchema = resolvedInputObject
  .extend({
    agent: shape.agent.optional(),
    maxConcurrentTools: shape.maxConcurrentTools.default(defaultMaxConcurrentTools),
    maxToolCallsPerReply: shape.maxToolCallsPerReply.unwrap().default(defaultMaxToolCallsPerReply),
    modelTimeoutSeconds: shape.modelTimeoutSeconds.default(defaultModelTimeoutSeconds),
    maxSubagentDepth: shape.maxSubagentDepth.default(defaultMaxSubagentDepth),
    maxHandoffs: shape.maxHandoffs.default(defaultMaxHandoffs),
    stream: z.boolean().default(false),
    // `true`, `false` or some settings: resolved to every setting, or to none (not in batch mode).
    batch: batchOptionSchema.optional().transform(resolveBatchOption),
    approval: z
      .object({
        tools: z.array(z.string()).default([]),
        skip: z.boolean().default(false),
        timeoutSeconds: z
          .number()
          .int()
          .min(1)
          .max(30 * 24 * 3600)
          .default(defaultApprovalTimeoutSeconds),
      })
      .default({ tools: [], skip: false, timeoutSeconds: defaultApprovalTimeoutSeconds }),
    session: z
      .object({
        idleTimeoutSeconds: z
          .number()
          .int()
          .min(1)
          .max(30 * 24 * 3600)
          .default(defaultIdleTimeoutSeconds),
      })
      .optional(),
    context: contextSettingsSchema
      .extend({ keepRecentTurns: contextSettingsSchema.shape.keepRecentTurns.default(defaultKeepRecentTurns) })
      .default({ keepRecentTurns: defaultKeepRecentTurns }),
  })
  .refine(requiresSomethingToAnswer, somethingToAnswer())
  .refine((input) => !(input.batch && input.session), { message: batchSessionProblem, path: ['batch'] })
  .refine((input) => input.agent !== undefined || input.model !== undefined, {
    message: 'a model (provider:model) is required when no agent is named',
    path: ['model'],
  })
  .superRefine(refuseSettingsGivenTwice)
  .transform((given): ResolvedAgentInput => {
    // The older shape (maxOutputTokens, thinkingBudget, reasoningEffort beside the rest) goes into modelSettings here, once.
    const input = withSettingsFolded(given);
    if (input.agent !== undefined) return { ...input, agent: input.agent };
    return {
      ...input,
      agent: defaultAgentName,
      tools: input.tools ?? [],
      maxIterations: input.maxIterations ?? defaultMaxIterations,
    };
  });

/** The input a caller writes: settings with defaults may be left out. */
export type AgentInput = z.input<typeof agentInputSchema>;

export type InputCheck = { ok: true; input: ResolvedAgentInput } | { ok: false; problems: string };

/** Checks a caller's input and fills in every default, so the workflow receives explicit settings. */
export function resolveAgentInput(raw: unknown): InputCheck {
  const parsed = agentInputSchema.safeParse(raw);
  return parsed.success ? { ok: true, input: parsed.data } : { ok: false, problems: describeIssues(parsed.error) };
}
