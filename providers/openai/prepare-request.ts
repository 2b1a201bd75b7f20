import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ProviderRequest } from '../provider-call';
import { toOpenAIMessages } from './convert-messages';
import { promptCacheFields } from './prompt-cache';

/** The name the built-in Chat Completions provider registers. */
export const openaiProviderName = 'openai';

/**
 * Neutral request → Chat Completions body, applying OpenAI's own rules in one
 * place: `tool_choice` only alongside `tools`, no assistant message with
 * neither content nor tool calls (an empty reply is left out), structured
 * output as `response_format` json_schema, and `reasoning_effort` when set.
 * Thinking is never sent: Chat Completions has no field for it (DeepSeek
 * refuses its own `reasoning_content` sent back, OpenAI any unknown field).
 * The session's `prompt_cache_key` goes with every call (./prompt-cache.ts).
 */
export function prepareOpenAIRequest(request: ProviderRequest): ChatCompletionCreateParamsNonStreaming {
  // thinkingBudget is Anthropic's: Chat Completions has no field for it.
  const settings = request.modelSettings;
  const messages = request.messages.filter(
    (message) => !(message.role === 'assistant' && message.toolCalls.length === 0 && !message.content.trim()),
  );
  const tools = request.tools.map((tool) => ({
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
  // Fields in a fixed order, what every call of a session shares first and the conversation last, so that two calls
  // of a session are the same bytes up to their new messages (OpenAI caches the longest prefix it has seen).
  return {
    model: request.model,
    ...promptCacheFields(settings, request.sessionKey),
    ...(tools.length > 0 && { tools }),
    ...(settings.maxOutputTokens !== undefined && { max_completion_tokens: settings.maxOutputTokens }),
    ...(settings.temperature !== undefined && { temperature: settings.temperature }),
    ...(settings.reasoningEffort !== undefined && { reasoning_effort: settings.reasoningEffort }),
    // Structured output, natively: the final answer is JSON matching the schema (not strict: any zod schema's JSON form is accepted).
    ...(request.output && {
      response_format: {
        type: 'json_schema' as const,
        json_schema: { name: 'output', schema: request.output.schema, strict: false },
      },
    }),
    messages: toOpenAIMessages(messages),
    ...(tools.length > 0 && request.toolChoice === 'none' && { tool_choice: 'none' as const }),
  };
}
