import { z } from 'zod';

/**
 * The provider-neutral conversation. The workflow stores these; only the model
 * activity converts them to and from a provider's wire format.
 */

export const toolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  /** The arguments exactly as the model produced them: JSON text, possibly malformed. */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const systemMessageSchema = z.object({ role: z.literal('system'), content: z.string() });
export const userMessageSchema = z.object({ role: z.literal('user'), content: z.string() });
export const assistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: z.string(),
  toolCalls: z.array(toolCallSchema),
});
export const toolResultMessageSchema = z.object({
  role: z.literal('tool'),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  content: z.string(),
  isError: z.boolean(),
});

export const messageSchema = z.discriminatedUnion('role', [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolResultMessageSchema,
]);

export type SystemMessage = z.infer<typeof systemMessageSchema>;
export type UserMessage = z.infer<typeof userMessageSchema>;
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
export type ToolResultMessage = z.infer<typeof toolResultMessageSchema>;
export type Message = z.infer<typeof messageSchema>;

/** Why the model stopped, mapped from each provider's own vocabulary into a closed union. */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'refusal' | 'other';

/**
 * Tokens spent, and what they cost. The cost is computed in the model activity
 * from the worker's price table (core/cost.ts) and travels with the tokens, so
 * every sum of usage (a turn, a run, a subagent's spend) is a sum of cost too.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** What these tokens cost in US dollars, as far as their model's price is known. */
  costUsd?: number;
  /** Model calls whose price is not known: their cost is not in costUsd, which is then a lower bound. */
  unpricedCalls?: number;
}

export const zeroUsage: Usage = { inputTokens: 0, outputTokens: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
  if (a.costUsd !== undefined || b.costUsd !== undefined) sum.costUsd = (a.costUsd ?? 0) + (b.costUsd ?? 0);
  if (a.unpricedCalls || b.unpricedCalls) sum.unpricedCalls = (a.unpricedCalls ?? 0) + (b.unpricedCalls ?? 0);
  return sum;
}

/** What one model call produced, already in neutral form. */
export interface ModelResponse {
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: Usage;
}
