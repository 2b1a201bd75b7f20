import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { ModelResponse, ToolCall } from '../../core/messages';
import { mapOpenAIFinishReason } from './map-finish-reason';

/** OpenAI Chat Completion → neutral response. A refusal overrides the finish reason. */
export function fromOpenAICompletion(completion: ChatCompletion): ModelResponse {
  const choice = completion.choices[0];
  if (!choice) throw new Error('OpenAI response has no choices');
  const toolCalls: ToolCall[] = (choice.message.tool_calls ?? []).flatMap((call) =>
    call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
  );
  const refusal = choice.message.refusal;
  return {
    message: { role: 'assistant', content: refusal || choice.message.content || '', toolCalls },
    finishReason: refusal ? 'refusal' : mapOpenAIFinishReason(choice.finish_reason),
    usage: {
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
    },
  };
}
