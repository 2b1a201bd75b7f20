import { z } from 'zod';
import { approvalPolicySchema, modelSettingsSchema, reasoningEffortSchema, thinkingBudgetSchema } from './agent-spec';
import { settingsGivenTwice, withSettingsFolded } from './model-settings';
import { attachmentPartsSchema, messageSchema } from './messages';
import { promptAttachmentsProblem } from './attachments';
import type { CarriedState } from './carried-state';
import { parseModelId } from './model-id';
import { requiresSomethingToAnswer, somethingToAnswer } from './something-to-answer';
import { maxPromptChars } from './limits';
import { batchSessionProblem, type BatchSettings } from './batch-settings';
import type { EvalTools } from './eval-tools';
import type { ToolFixture, UnrecordedToolPolicy } from './eval-types';

/**
 * The agent workflow's input, as the client resolved it: every setting explicit.
 * The workflow checks this shape only and never fills in a default, so changing
 * a default in code (agent/limits.ts) can never change a run already in flight.
 * Defaults are applied once, on the client, by resolveAgentInput (./resolve-input.ts).
 */

/** What the run carries to its next run: declared, versioned and read in core/carried-state.ts, not here. */
export type { CarriedInbox, CarriedState } from './carried-state';

export const modelIdSchema = z.string().superRefine((value, context) => {
  try {
    parseModelId(value);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

export const contextSettingsSchema = z.object({
  /** Cut tool-call arguments and tool results older than this many assistant turns. */
  compactAfterTurns: z.number().int().min(1).optional(),
  /** When a model call's input exceeds this many tokens, older turns are summarised by a model call. */
  maxContextTokens: z.number().int().min(1).optional(),
  /** Turns kept verbatim when summarising. */
  keepRecentTurns: z.number().int().min(1),
});

/** core/batch-settings.ts's settings, checked: a run's batch mode. */
export const batchSettingsSchema = z.object({
  firstCheckSeconds: z.number().min(0.05).max(3600),
  maxCheckIntervalSeconds: z
    .number()
    .min(0.05)
    .max(6 * 3600),
  maxSubmissions: z.number().int().min(1).max(10),
}) satisfies z.ZodType<BatchSettings>;

/** An eval's tool rules (core/eval-tools.ts, docs/evals-tools.md). */
export const evalToolsSchema = z.object({
  fixtures: z.array(
    z.object({
      tool: z.string().min(1),
      arguments: z.string(),
      content: z.string(),
      isError: z.boolean(),
    }) satisfies z.ZodType<ToolFixture>,
  ),
  unrecorded: z.enum(['scratch', 'refuse']) satisfies z.ZodType<UnrecordedToolPolicy>,
}) satisfies z.ZodType<EvalTools>;

// Agent names become tool names (subagents) and part of one (transfer_to_<name>).
export const agentNameSchema = z.string().regex(/^[a-zA-Z0-9_-]{1,52}$/, 'an agent name is letters, digits, _ and -, at most 52');

export const resolvedInputObject = z.object({
  prompt: z.string().trim().min(1, 'prompt must not be empty').max(maxPromptChars).optional(),
  messages: z.array(messageSchema).optional(),
  /** Images and files sent with the prompt, by reference: stored by the client first (docs/attachments.md). */
  attachments: attachmentPartsSchema.optional(),
  /** The registered agent that answers (`default` when a caller names none). */
  agent: agentNameSchema,
  /** Overrides of that agent's own settings (the CLI's --model, --system, --tools, --max-iterations). */
  model: modelIdSchema.optional(),
  systemPrompt: z.string().max(maxPromptChars).optional(),
  tools: z.array(z.string().min(1)).optional(),
  maxIterations: z.number().int().min(1, 'maxIterations must be at least 1').max(10_000).optional(),
  /**
   * The entry agent's model settings for this run, each overriding the agent's own (the CLI's --temperature,
   * --max-output-tokens, --thinking-budget, --reasoning-effort): merged with them once, in prepareRun.
   */
  modelSettings: modelSettingsSchema.optional(),
  /**
   * The older shape of three of those settings, one by one beside the others: still accepted from callers, and
   * held by the input of runs started before modelSettings (replayed, continued as new). Checks fold them into
   * modelSettings (core/model-settings.ts), so the workflow never reads them.
   */
  maxOutputTokens: z.number().int().min(1).optional(),
  thinkingBudget: thinkingBudgetSchema.optional(),
  reasoningEffort: reasoningEffortSchema.optional(),
  maxConcurrentTools: z.number().int().min(1).max(100),
  /**
   * Tool calls run from one model reply; the calls beyond get "not run" results. Bounds the history events a round
   * can add, however many calls a (possibly injected) reply asks for. Absent (runs of older clients): no cap, as they ran.
   */
  maxToolCallsPerReply: z.number().int().min(1).max(1000).optional(),
  modelTimeoutSeconds: z.number().int().min(1).max(3600),
  workspace: z.string().min(1, 'workspace must be a directory path'),
  /** Keep the run open for more user messages (Temporal Updates) until ended or idle this long. */
  session: z
    .object({
      idleTimeoutSeconds: z
        .number()
        .int()
        .min(1)
        .max(30 * 24 * 3600),
    })
    .optional(),
  /** End the run cleanly (status token_budget) once input plus output tokens exceed this. */
  maxSessionTokens: z.number().int().min(1).optional(),
  /**
   * End the run cleanly (status cost_budget) before a model call whose worst case (the input so far plus the
   * maximum output, priced) would take the spend past this many US dollars. Overrides the agent's own maxCostUsd.
   */
  maxCostUsd: z.number().positive('maxCostUsd must be more than 0').optional(),
  /**
   * The model activity publishes the answer's text to the run's stream as it is written (`agent watch`, `run --stream`).
   * The turn and tool events are published whatever this says. Absent (older clients): not streamed.
   */
  stream: z.boolean().optional(),
  /**
   * Batch mode (`run --batch`): every model call goes through the provider's batch API, at its batch price, and the
   * workflow waits for it on durable timers (core/batch-settings.ts). Absent: online, unless the agent says batch
   * and the run is not a session. Never with `session`.
   */
  batch: batchSettingsSchema.optional(),
  /** Continue as new after this many model calls in one run (Temporal's own suggestion also triggers it). */
  continueAsNewAfterModelCalls: z.number().int().min(1).optional(),
  context: contextSettingsSchema,
  /** How deep subagents may nest under this run: a run at this depth offers its model no subagents. */
  maxSubagentDepth: z.number().int().min(0).max(10),
  /** Handoffs allowed in one turn: a conversation cannot bounce between agents forever. */
  maxHandoffs: z.number().int().min(0).max(100),
  /**
   * Tool calls a person approves before they run: the tools named here (e.g. `write_file`, `agent chat`'s default)
   * besides those whose own definition says so; `skip` approves everything (`run --yes`); a call not decided within
   * `timeoutSeconds` is not run. A run started without it (older clients) asks only for the tools' own rules, and waits without a timeout.
   */
  approval: z
    .object({
      tools: z.array(z.string()),
      skip: z.boolean(),
      timeoutSeconds: z
        .number()
        .int()
        .min(1)
        .max(30 * 24 * 3600),
      /**
       * The operator's approval policy for this run (core/approval-policy.ts): its rules come before each agent's own,
       * its default wins. Never the model's: it comes with the run's input only.
       */
      policy: approvalPolicySchema.optional(),
    })
    .optional(),
  /** Set when this run is a fork: the conversation it started from (client/fork-agent.ts). */
  forkedFrom: z.object({ workflowId: z.string(), runId: z.string(), messageIndex: z.number().int().min(0) }).optional(),
  /**
   * The result carries the tool calls that answered the prompt, each with its result clipped (`toolCalls`): an eval
   * reads them from there (evals/workflow/). Absent: the result has none, as before.
   */
  reportToolCalls: z.boolean().optional(),
  /**
   * Set when an eval runs this agent (docs/evals-tools.md): a call a fixture answers (same tool, same canonical
   * arguments) gets its recorded result and runs nothing; other calls of the built-in workspace tools run against
   * the run's workspace, which must then be a scratch copy (`scratch`), or are refused (`refuse`); every other tool
   * is refused. Subagents get the same. Absent: tools run as they always did.
   */
  evalTools: evalToolsSchema.optional(),
  /** Set when a parent run started this one as a subagent. */
  subagent: z.object({ depth: z.number().int().min(1), parentWorkflowId: z.string() }).optional(),
  /**
   * What the previous run of this session carried over (continue-as-new): the run's own, never a caller's. This
   * schema does not look inside it (a list of its fields here dropped whatever was not on it); the workflow reads it
   * with core/carried-state.ts's readCarriedState, which knows every version of it.
   */
  carried: z.custom<CarriedState>().optional(),
});

export const resolvedAgentInputSchema = resolvedInputObject
  .refine(requiresSomethingToAnswer, somethingToAnswer())
  .refine((input) => !(input.batch && input.session), { message: batchSessionProblem, path: ['batch'] })
  .superRefine(refuseSettingsGivenTwice)
  .superRefine((input, context) => {
    const problem = promptAttachmentsProblem(input);
    if (problem) context.addIssue({ code: 'custom', message: problem, path: ['attachments'] });
  })
  .transform(withSettingsFolded);

/** A setting given in the older shape and in modelSettings with two values: which one the caller meant is unknowable. */
export function refuseSettingsGivenTwice(input: Parameters<typeof settingsGivenTwice>[0], context: z.RefinementCtx): void {
  for (const { name, message } of settingsGivenTwice(input)) context.addIssue({ code: 'custom', message, path: [name] });
}

/** What the workflow receives: every setting explicit. */
export type ResolvedAgentInput = z.output<typeof resolvedAgentInputSchema>;

/** The JSON Schema that core/resolved-input.schema.json holds (scripts/generate-input-schema.ts). */
export function resolvedInputJsonSchemaFromZod(): Record<string, unknown> {
  return z.toJSONSchema(resolvedInputObject, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}
