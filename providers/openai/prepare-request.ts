import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { toolJsonSchema } from '../../tools';
import type { ProviderRequest } from '../provider-call';
import { toOpenAIMessages } from './convert-messages';

/**
 * Neutral request → Chat Completions body, applying OpenAI's own rules in one
 * place: `tool_choice` only alongside `tools`, and no assistant message with
 * neither content nor tool calls (an empty reply is left out).
 */
export function prepareOpenAIRequest(request: ProviderRequest): ChatCompletionCreateParamsNonStreaming {
  const messages = request.messages.filter(
    (message) => !(message.role === 'assistant' && message.toolCalls.length === 0 && !message.content.trim()),
  );
  const tools = request.tools.map((tool) => ({
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: toolJsonSchema(tool) },
  }));
  return {
    model: request.model,
    messages: toOpenAIMessages(messages),
    ...(tools.length > 0 && { tools }),
    ...(tools.length > 0 && request.toolChoice === 'none' && { tool_choice: 'none' as const }),
    ...(request.maxOutputTokens !== undefined && { max_completion_tokens: request.maxOutputTokens }),
  };
}
