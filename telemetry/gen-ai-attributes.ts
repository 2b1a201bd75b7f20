import type { Attributes } from '@opentelemetry/api';
import type { ModelResponse } from '../core/messages';
import type { ModelCallSpan, ToolCallSpan } from './agent-spans';

/**
 * Names and attributes of the model call and tool call spans, after the
 * OpenTelemetry GenAI semantic conventions (semantic-conventions-genai,
 * "Inference" and "Execute tool span"; status Development): span name
 * `{gen_ai.operation.name} {gen_ai.request.model}` for a model call and
 * `execute_tool {gen_ai.tool.name}` for a tool call.
 *
 * `gen_ai.system` was renamed `gen_ai.provider.name` in semantic conventions
 * 1.37; both are set, so backends that read either one find the provider.
 */

export const modelOperation = 'chat';
export const toolOperation = 'execute_tool';

export function modelCallSpanName(span: ModelCallSpan): string {
  return `${modelOperation} ${span.model}`;
}

export function toolCallSpanName(span: ToolCallSpan): string {
  return `${toolOperation} ${span.tool}`;
}

/** Set when the span starts: the attributes the conventions want available for sampling decisions, and the request settings. */
export function modelCallAttributes(span: ModelCallSpan): Attributes {
  return withoutUndefined({
    'gen_ai.operation.name': modelOperation,
    'gen_ai.provider.name': span.provider,
    'gen_ai.system': span.provider,
    'gen_ai.request.model': span.model,
    'gen_ai.request.max_tokens': span.maxOutputTokens,
    'gen_ai.request.temperature': span.temperature,
    'gen_ai.output.type': span.outputType,
    'gen_ai.conversation.id': span.conversationId,
    'gen_ai.agent.name': span.agent,
  });
}

/**
 * Set when the model has answered. Finish reasons are durable-agent's own closed set (`stop`, `tool_calls`, `length`, …).
 * The prompt cache's reads and writes are `gen_ai.usage.cache_read.input_tokens` and
 * `gen_ai.usage.cache_creation.input_tokens`, parts of `gen_ai.usage.input_tokens` as the conventions ask (and as
 * Usage counts them); set only when the provider reported some.
 */
export function modelResponseAttributes(response: ModelResponse): Attributes {
  const usage = response.usage;
  return {
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    ...(usage.cacheReadTokens !== undefined && { 'gen_ai.usage.cache_read.input_tokens': usage.cacheReadTokens }),
    ...(usage.cacheWriteTokens !== undefined && { 'gen_ai.usage.cache_creation.input_tokens': usage.cacheWriteTokens }),
    'gen_ai.response.finish_reasons': [response.finishReason],
  };
}

export function toolCallAttributes(span: ToolCallSpan): Attributes {
  return withoutUndefined({
    'gen_ai.operation.name': toolOperation,
    'gen_ai.tool.name': span.tool,
    'gen_ai.tool.type': 'function',
    'gen_ai.tool.call.id': span.callId,
    'gen_ai.tool.description': span.description,
  });
}

/**
 * `error.type`: low-cardinality, as the conventions ask. A provider's HTTP
 * status (`429`, `500`) when it answered with one, else a Temporal failure's
 * type (`ToolRefused`), else the error's class name. Never its message: spans
 * do not carry error text (telemetry/redacting-span-exporter.ts).
 */
export function errorType(error: unknown): string {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number') return String(status);
  const failureType = (error as { type?: unknown } | null)?.type;
  if (error instanceof Error && typeof failureType === 'string' && failureType) return failureType;
  if (error instanceof Error) return error.name || error.constructor.name;
  return '_OTHER';
}

function withoutUndefined(attributes: Record<string, string | number | undefined>): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) as Attributes;
}
