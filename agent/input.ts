import { z } from 'zod';
import { messageSchema } from './messages';
import { parseModelId } from './model-id';
import { defaultMaxConcurrentTools, defaultMaxIterations, maxPromptChars } from './limits';

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
  })
  .refine((input) => input.prompt !== undefined || (input.messages?.length ?? 0) > 0, {
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
