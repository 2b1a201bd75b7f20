import { z } from 'zod';
import type { Usage } from './usage';
import { attachmentBounds, attachmentMediaTypes, type AttachmentPart } from './attachments';

/**
 * The provider-neutral conversation. The workflow stores these; only the model
 * activity converts them to and from a provider's wire format.
 */

export const toolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  /** The arguments exactly as the model produced them: JSON text, possibly malformed. */
  arguments: z.string(),
  /**
   * Set when a person edited the arguments before approving the call (docs/policy.md): what the model first asked,
   * kept beside the arguments that ran. The model is shown `arguments`, the call that ran.
   */
  originalArguments: z.string().optional(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

/**
 * Where a thinking part stood in the reply, when not before everything else: after
 * this many characters of the reply's text and this many of its tool calls. With
 * it a reply is rebuilt in the order the provider gave it (Anthropic wants its
 * thinking blocks back in their original places; OpenAI each reasoning item before
 * the item that followed it).
 */
const thinkingPositionSchema = z.object({ text: z.number().int().min(0), toolCalls: z.number().int().min(0) });

/**
 * The model's reasoning, as a provider returned it. Only the provider and model
 * that produced it are ever sent it back (each provider's prepare step drops the
 * rest), byte for byte.
 */
export const thinkingPartSchema = z.object({
  type: z.literal('thinking'),
  /** The registered provider that produced it (`anthropic`, `openai-responses`, `openai`) and its model. */
  provider: z.string(),
  model: z.string(),
  /** What the model let us read of its reasoning: Anthropic's thinking, OpenAI's summary, `reasoning_content`. May be empty. */
  text: z.string(),
  /** The provider's opaque proof or payload: Anthropic's `signature`, OpenAI's `encrypted_content`. */
  signature: z.string().optional(),
  /** The provider's own id of the item (OpenAI's `rs_…`). */
  id: z.string().optional(),
  at: thinkingPositionSchema.optional(),
});

/** Reasoning the provider redacted: an opaque payload (Anthropic's `redacted_thinking` data), kept only to be sent back. */
export const redactedThinkingPartSchema = z.object({
  type: z.literal('redacted_thinking'),
  provider: z.string(),
  model: z.string(),
  data: z.string(),
  at: thinkingPositionSchema.optional(),
});

export const reasoningPartSchema = z.discriminatedUnion('type', [thinkingPartSchema, redactedThinkingPartSchema]);
export type ThinkingPart = z.infer<typeof thinkingPartSchema>;
export type RedactedThinkingPart = z.infer<typeof redactedThinkingPartSchema>;
export type ReasoningPart = z.infer<typeof reasoningPartSchema>;

/**
 * A reference to an image or file in the attachment store (core/attachments.ts, docs/attachments.md): history carries
 * this, never the bytes. The model activity loads and checks the bytes, and each provider converts them.
 */
export const attachmentPartSchema = z.object({
  type: z.literal('attachment'),
  ref: z.string().regex(/^[0-9a-f]{64}(\.[A-Za-z0-9._-]{1,64})?$/),
  mediaType: z.enum(attachmentMediaTypes),
  size: z.number().int().min(1).max(attachmentBounds.maxFileBytes),
  name: z
    .string()
    .min(1)
    .max(attachmentBounds.maxNameChars * 2)
    .optional(),
}) satisfies z.ZodType<AttachmentPart>;
// Their count and total size are checked with the prompt (promptAttachmentsProblem) and by the client, not here: the
// workflow's zod-free check knows no maxItems.
export const attachmentPartsSchema = z.array(attachmentPartSchema);

export const systemMessageSchema = z.object({ role: z.literal('system'), content: z.string() });
export const userMessageSchema = z.object({
  role: z.literal('user'),
  content: z.string(),
  /**
   * A steering message: a person's message that joined a turn in progress (docs/approvals.md, "Steering a turn"), not the start of a
   * turn. Providers send it as any user message; readers that count turns skip it.
   */
  steering: z.literal(true).optional(),
  /** Images and files sent with the message, by reference (docs/attachments.md). */
  attachments: attachmentPartsSchema.optional(),
});
export const assistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: z.string(),
  toolCalls: z.array(toolCallSchema),
  /**
   * The model's thinking in this reply, in the order given (optional: replies
   * without thinking, and every message stored before thinking was kept, have none).
   */
  thinking: z.array(reasoningPartSchema).optional(),
});
export const toolResultMessageSchema = z.object({
  role: z.literal('tool'),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  content: z.string(),
  isError: z.boolean(),
  /**
   * Images and files the tool returned (a read_file of a PNG), by reference like a user message's: the tool activity
   * checked and stored the bytes, and each provider converts them at the call (docs/attachments.md). Absent on every
   * result before tools could return them, and on results of text alone.
   */
  attachments: attachmentPartsSchema.optional(),
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

export type { Usage } from './usage';

/** What one model call produced, already in neutral form. */
export interface ModelResponse {
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: Usage;
}
