import { z } from 'zod';
import { messageSchema } from './messages';
import { parseModelId } from './model-id';
import { defaultMaxConcurrentTools, defaultMaxIterations, maxPromptChars } from './limits';

const usageSchema = z.object({ inputTokens: z.number().int().min(0), outputTokens: z.number().int().min(0) });

/** What continue-as-new carries from one run of a session to the next; not for callers to set. */
export const carriedStateSchema = z.object({
  messages: z.array(messageSchema),
  usage: usageSchema,
  iteration: z.number().int().min(0),
  turns: z.number().int().min(0),
  transcript: z.object({ id: z.string().optional(), length: z.number().int().min(0) }),
  summary: z.object({ content: z.string(), upTo: z.number().int().min(0) }).optional(),
  progressOffset: z.number().int().min(0),
  /** Set when a run continued as new in the middle of a turn: that turn's iterations so far. */
  turnIteration: z.number().int().min(0).optional(),
  lastAnswer: z.string(),
});
export type CarriedState = z.infer<typeof carriedStateSchema>;

/**
 * The agent workflow's input. Validated on the client before a run starts and
 * again when the workflow starts, so a run started by any other client fails
 * fast with the same message.
 */
export const agentInputSchema = z
  .object({
    prompt: z.string().trim().min(1, 'prompt must not be empty').max(maxPromptChars).optional(),
    messages: z.array(messageSchema).optional(),
    model: z.string().superRefine((value, context) => {
      try {
        parseModelId(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
    systemPrompt: z.string().max(maxPromptChars).optional(),
    tools: z.array(z.string().min(1)).default([]),
    maxIterations: z.number().int().min(1, 'maxIterations must be at least 1').max(10_000).default(defaultMaxIterations),
    maxConcurrentTools: z.number().int().min(1).max(100).default(defaultMaxConcurrentTools),
    maxOutputTokens: z.number().int().min(1).optional(),
    modelTimeoutSeconds: z.number().int().min(1).max(3600).default(300),
    workspace: z.string().min(1, 'workspace must be a directory path'),
    /** Keep the run open for more user messages (Temporal Updates) until ended or idle this long. */
    session: z.object({ idleTimeoutSeconds: z.number().int().min(1).max(30 * 24 * 3600).default(3600) }).optional(),
    /** End the run cleanly (status token_budget) once input plus output tokens exceed this. */
    maxSessionTokens: z.number().int().min(1).optional(),
    /** Continue as new after this many model calls in one run (Temporal's own suggestion also triggers it). */
    continueAsNewAfterModelCalls: z.number().int().min(1).optional(),
    context: z
      .object({
        /** Cut tool-call arguments and tool results older than this many assistant turns. */
        compactAfterTurns: z.number().int().min(1).optional(),
        /** When a model call's input exceeds this many tokens, older turns are summarised by a model call. */
        maxContextTokens: z.number().int().min(1).optional(),
        /** Turns kept verbatim when summarising. */
        keepRecentTurns: z.number().int().min(1).default(4),
      })
      .default({ keepRecentTurns: 4 }),
    carried: carriedStateSchema.optional(),
  })
  .refine((input) => input.prompt !== undefined || (input.messages?.length ?? 0) > 0 || input.session || input.carried, {
    message: 'either a prompt or initial messages are required',
    path: ['prompt'],
  });

export type AgentInput = z.input<typeof agentInputSchema>;
export type ValidAgentInput = z.output<typeof agentInputSchema>;

export type InputCheck = { ok: true; input: ValidAgentInput } | { ok: false; problems: string };

export function checkAgentInput(raw: unknown): InputCheck {
  const parsed = agentInputSchema.safeParse(raw);
  if (parsed.success) return { ok: true, input: parsed.data };
  const problems = parsed.error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
  return { ok: false, problems };
}
