import type { Message as AnthropicMessage } from '@anthropic-ai/sdk/resources/messages';
import type { ModelResponse, ToolCall } from '../../core/messages';
import { mapAnthropicStopReason } from './map-stop-reason';
import { finalOutputToolName } from './prepare-request';

/**
 * Anthropic message → neutral response: text blocks join into the content,
 * tool_use blocks become tool calls. When structured output was asked for, a
 * call of the final-output tool is the final answer: its input becomes the
 * content, as JSON, and the reply's other tool calls are dropped (never run,
 * never stored), since giving the final output ends the agent's work.
 */
export function fromAnthropicMessage(response: AnthropicMessage, options: { finalOutput?: boolean } = {}): ModelResponse {
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of response.content) {
    if (block.type === 'text') text.push(block.text);
    if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    }
  }
  const usage = { inputTokens: response.usage?.input_tokens ?? 0, outputTokens: response.usage?.output_tokens ?? 0 };
  const finalOutput = options.finalOutput ? toolCalls.find((call) => call.name === finalOutputToolName) : undefined;
  if (finalOutput) return { message: { role: 'assistant', content: finalOutput.arguments, toolCalls: [] }, finishReason: 'stop', usage };
  return {
    message: { role: 'assistant', content: text.join(''), toolCalls },
    finishReason: mapAnthropicStopReason(response.stop_reason),
    usage,
  };
}
