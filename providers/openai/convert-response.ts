import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { ModelResponse, ToolCall, Usage } from '../../core/messages';
import { openaiUsage } from './usage';
import { assistantMessageFromParts, type ReplyPart } from '../../core/reply-parts';
import { mapOpenAIFinishReason } from './map-finish-reason';

/**
 * What OpenAI-compatible servers add to a Chat Completions message: the model's
 * reasoning as `reasoning_content` (DeepSeek, vLLM) or `reasoning` (Ollama, newer vLLM).
 */
interface ReasoningFields {
  reasoning_content?: unknown;
  reasoning?: unknown;
}

/**
 * OpenAI Chat Completion → neutral response. A refusal overrides the finish
 * reason. Reasoning a compatible server returns is kept as thinking (to be read:
 * Chat Completions has no way to send it back, and the prepare step never does).
 */
export function fromOpenAICompletion(completion: ChatCompletion, source?: { provider: string; model: string }): ModelResponse {
  const choice = completion.choices[0];
  if (!choice) throw new Error('OpenAI response has no choices');
  const toolCalls: ToolCall[] = (choice.message.tool_calls ?? []).flatMap((call) =>
    call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
  );
  const refusal = choice.message.refusal;
  const extra = choice.message as ReasoningFields;
  const reasoning =
    typeof extra.reasoning_content === 'string'
      ? extra.reasoning_content
      : typeof extra.reasoning === 'string'
        ? extra.reasoning
        : '';
  const parts: ReplyPart[] = [
    ...(reasoning
      ? [{ type: 'thinking' as const, ...(source ?? { provider: 'openai', model: completion.model }), text: reasoning }]
      : []),
    { type: 'text', text: refusal || choice.message.content || '' },
    ...toolCalls.map((call) => ({ type: 'tool_call' as const, call })),
  ];
  return {
    message: assistantMessageFromParts(parts),
    finishReason: refusal ? 'refusal' : mapOpenAIFinishReason(choice.finish_reason),
    usage: chatCompletionUsage(completion.usage),
  };
}

/**
 * Chat Completions usage → neutral usage. `prompt_tokens` already counts the cached tokens, which
 * `prompt_tokens_details.cached_tokens` names (OpenAI writes to its cache at no extra cost, and reports no writes).
 */
export function chatCompletionUsage(usage: ChatCompletion['usage']): Usage {
  return openaiUsage({
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    cachedTokens: usage?.prompt_tokens_details?.cached_tokens,
    reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens,
  });
}
