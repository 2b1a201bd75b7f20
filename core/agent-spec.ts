import { z } from 'zod';

// Anthropic's smallest thinking budget.
export const minThinkingBudget = 1024;
export const reasoningEfforts = ['low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof reasoningEfforts)[number];

export const thinkingBudgetSchema = z
  .number()
  .int()
  .min(minThinkingBudget, `must be at least ${minThinkingBudget} tokens (Anthropic's minimum)`)
  .max(1_000_000);
export const reasoningEffortSchema = z.enum(reasoningEfforts, { message: `must be one of ${reasoningEfforts.join(', ')}` });
/**
 * Prompt caching: `off`, or how long a cached prefix should live. Each provider offers some of these (Anthropic 5m
 * and 1h, OpenAI its in-memory cache as 5m and 24h) and refuses the others at start (its modelSettingsProblem).
 */
export const promptCacheSettings = ['off', '5m', '1h', '24h'] as const;
export type PromptCacheSetting = (typeof promptCacheSettings)[number];
export const promptCacheSchema = z.enum(promptCacheSettings, { message: `must be one of ${promptCacheSettings.join(', ')}` });

/**
 * Settings of an agent's model calls: the agent's own (defineAgent's modelSettings), overridden setting by setting
 * by a run's (the CLI's flags, startAgent's modelSettings) in prepareRun, and read by each provider from its request
 * (core/model-settings.ts says how they travel). Adding a setting: add it here, give it a flag
 * (cli/commands/agent-flags.ts), and have the providers that support it read it in their prepare step. A rule only
 * one provider has belongs to that provider (its modelSettingsProblem), not here.
 */
export const modelSettingsSchema = z.object({
  maxOutputTokens: z.number().int().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Anthropic extended thinking: the tokens the model may think with before it answers (`thinking.budget_tokens`). */
  thinkingBudget: thinkingBudgetSchema.optional(),
  /** OpenAI reasoning models (Responses and Chat Completions): how hard the model reasons. */
  reasoningEffort: reasoningEffortSchema.optional(),
  /**
   * Prompt caching, which the providers manage when it is not set (Anthropic: breakpoints with a five-minute time to
   * live; OpenAI: a prompt_cache_key per session): `off`, or a longer time to live where the provider offers one.
   */
  promptCache: promptCacheSchema.optional(),
});
export type ModelSettings = z.infer<typeof modelSettingsSchema>;

export const policyActions = ['allow', 'ask', 'deny'] as const;
export const policyActionSchema = z.enum(policyActions, { message: `must be one of ${policyActions.join(', ')}` });
export type PolicyAction = z.infer<typeof policyActionSchema>;

/** A condition on one argument: equal to a value, a string matching a glob (`*`, `?`), or a number within bounds. */
export const policyArgumentConditionSchema = z.union([
  z.strictObject({ equals: z.union([z.string(), z.number(), z.boolean()]) }),
  z.strictObject({ glob: z.string().min(1) }),
  z.strictObject({ min: z.number().optional(), max: z.number().optional() }),
]);
export type PolicyArgumentCondition = z.infer<typeof policyArgumentConditionSchema>;

/**
 * One rule of an approval policy (core/approval-policy.ts evaluates them, docs/policy.md explains them): it matches a
 * call when every condition it has holds, and then decides it. `name` is what the decision records.
 */
export const policyRuleSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 letters, digits, or _ . : -'),
  action: policyActionSchema,
  /** Tool names (`*` and `?` as wildcards); absent: every tool. */
  tools: z.array(z.string().min(1)).optional(),
  /** Globs over the call's path arguments, relative to the workspace: `src/**`, `.env`, `secrets/*.key`. */
  paths: z.array(z.string().min(1)).optional(),
  /** Conditions on top-level arguments, by name. */
  args: z.record(z.string(), policyArgumentConditionSchema).optional(),
  /** The run's owner, as its memo records it (serve/http/run-owner.ts's hash). */
  principals: z.array(z.string().min(1)).optional(),
  /** The run's tenant (its fairness key). */
  tenants: z.array(z.string().min(1)).optional(),
  /** Said to the model when the rule refuses a call. */
  reason: z.string().max(500).optional(),
});
export type PolicyRule = z.infer<typeof policyRuleSchema>;

/** Ordered rules, the first match deciding; `default` decides a call no rule matches (absent: `allow`). */
export const approvalPolicySchema = z.strictObject({
  rules: z.array(policyRuleSchema),
  default: policyActionSchema.optional(),
});
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;

/**
 * An agent as the workflow runs it: plain data, recorded in history when a run
 * starts (prepareRun), so a run keeps the definition it started with even if
 * the worker is redeployed with another. The values a user defines (with zod
 * schemas and handlers) stay on the worker: agents/define-agent.ts.
 */
export const agentSpecSchema = z.object({
  name: z.string(),
  description: z.string(),
  instructions: z.string(),
  model: z.string(),
  /** Registered tool names: each call is an activity. */
  tools: z.array(z.string()),
  /**
   * Tools whose calls wait for a person's approval while this agent has the conversation: the agent's own
   * `approveTools` and the run's, checked and expanded (`mcp:*`, `mcp:<server>`) by prepareRun and listMcpTools
   * like `tools`. Absent in runs recorded before it existed, which follow the run's approval settings alone.
   */
  approveTools: z.array(z.string()).optional(),
  /**
   * The agent's approval policy (core/approval-policy.ts), the run's own rules put before its own by prepareRun:
   * decided before `approveTools` and the tools' `needsApproval`, which apply to calls no rule matches. Absent in runs
   * recorded before it existed, and for agents without one.
   */
  policy: approvalPolicySchema.optional(),
  /** Agent names: each is offered as a tool of the same name; a call starts a child workflow. */
  subagents: z.array(z.string()),
  /** Agent names: each is offered as a tool `transfer_to_<name>`; a call hands the conversation over. */
  handoffs: z.array(z.string()),
  maxIterations: z.number().int().min(1),
  /** The agent's cost budget in US dollars, when it starts a run (a run's own maxCostUsd wins). */
  maxCostUsd: z.number().positive().optional(),
  /**
   * The agent's own time bounds (core/timed-wait.ts): each tightens the worker's for this agent's calls. Absent for
   * agents without them, and in older runs.
   */
  time: z
    .object({
      maxSleepSeconds: z.number().positive().optional(),
      maxWaitSeconds: z.number().positive().optional(),
      maxSchedules: z.number().int().min(1).optional(),
    })
    .optional(),
  /** Its one-shot runs call the model through the provider's batch API (core/batch-settings.ts); absent in older runs. */
  batch: z.boolean().optional(),
  modelSettings: modelSettingsSchema,
  /** The JSON Schema the final answer must match (from the agent's zod outputSchema), if any. */
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  /** The agent's guardrails (core/guardrails.ts): input, output and tool calls; absent when it has none, and in older runs. */
  guardrails: z
    .array(
      z.object({
        name: z.string(),
        checks: z.enum(['input', 'output', 'tool_call']),
        agent: z.string().optional(),
        parallel: z.boolean().optional(),
        onTrip: z.enum(['refuse_call', 'end_turn']).optional(),
        timeout: z.union([z.string(), z.number()]).optional(),
        maximumAttempts: z.number().int().min(1).optional(),
      }),
    )
    .optional(),
});
export type AgentSpec = z.infer<typeof agentSpecSchema>;
