import type { Message as AnthropicMessage } from '@anthropic-ai/sdk/resources/messages';
import type { ModelResponse, ToolCall } from '../../core/messages';
import { mapAnthropicStopReason } from './map-stop-reason';

/** Anthropic message → neutral response: text blocks join into the content, tool_use blocks become tool calls. */
export function fromAnthropicMessage(response: AnthropicMessage): ModelResponse {
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of response.content) {
    if (block.type === 'text') text.push(block.text);
    if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    }
  }
  return {
    message: { role: 'assistant', content: text.join(''), toolCalls },
    finishReason: mapAnthropicStopReason(response.stop_reason),
    usage: { inputTokens: response.usage?.input_tokens ?? 0, outputTokens: response.usage?.output_tokens ?? 0 },
  };
}
