import type { Message as AnthropicMessage } from '@anthropic-ai/sdk/resources/messages';
import type { ModelResponse, Usage } from '../../core/messages';
import { reportedCount } from '../../core/usage';
import { assistantMessageFromParts, type ReplyPart } from '../../core/reply-parts';
import { mapAnthropicStopReason } from './map-stop-reason';
import { finalOutputToolName } from './prepare-request';

/**
 * Anthropic message → neutral response: text blocks join into the content,
 * tool_use blocks become tool calls, and thinking and redacted-thinking blocks
 * are kept as they came (signature and data untouched), each marked with the
 * provider and model that made it, in their place among the others. When
 * structured output was asked for, a call of the final-output tool is the final
 * answer: its input becomes the content, as JSON, and the reply's other tool
 * calls are dropped (never run, never stored), since giving the final output
 * ends the agent's work.
 */
export function fromAnthropicMessage(
  response: AnthropicMessage,
  options: { finalOutput?: boolean; source?: { provider: string; model: string } } = {},
): ModelResponse {
  const source = options.source ?? { provider: 'anthropic', model: response.model };
  const parts: ReplyPart[] = response.content.flatMap((block): ReplyPart[] => {
    switch (block.type) {
      case 'text':
        return [{ type: 'text', text: block.text }];
      case 'tool_use':
        return [{ type: 'tool_call', call: { id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) } }];
      case 'thinking':
        return [{ type: 'thinking', ...source, text: block.thinking, signature: block.signature }];
      case 'redacted_thinking':
        return [{ type: 'redacted_thinking', ...source, data: block.data }];
      default:
        return [];
    }
  });
  const message = assistantMessageFromParts(parts);
  const usage = anthropicUsage(response.usage);
  const finalOutput = options.finalOutput ? message.toolCalls.find((call) => call.name === finalOutputToolName) : undefined;
  if (finalOutput) {
    // The turn ends here: its thinking is kept to be read, no longer placed among tool calls that are gone.
    const thinking = message.thinking?.map(({ at: _ignored, ...part }) => part);
    return {
      message: { role: 'assistant', content: finalOutput.arguments, toolCalls: [], ...(thinking && { thinking }) },
      finishReason: 'stop',
      usage,
    };
  }
  return { message, finishReason: mapAnthropicStopReason(response.stop_reason), usage };
}

/**
 * Anthropic's usage → neutral usage. Anthropic's `input_tokens` counts only the input after the last cache
 * breakpoint; the cache reads and writes are reported beside it. Neutral `inputTokens` is every token of the prompt
 * (core/usage.ts), so they are added to it, and counted apart too: reads, writes, and of the writes those kept for
 * an hour (`cache_creation.ephemeral_1h_input_tokens`), each billed at its own rate. Counts appear only when above
 * zero, so a call without caching has the usage it always had.
 */
export function anthropicUsage(usage: AnthropicMessage['usage'] | undefined): Usage {
  const thinkingTokens = usage?.output_tokens_details?.thinking_tokens;
  const read = reportedCount(usage?.cache_read_input_tokens);
  const written = reportedCount(usage?.cache_creation_input_tokens);
  const writtenForAnHour = Math.min(written, reportedCount(usage?.cache_creation?.ephemeral_1h_input_tokens));
  return {
    inputTokens: reportedCount(usage?.input_tokens) + read + written,
    outputTokens: usage?.output_tokens ?? 0,
    ...(typeof thinkingTokens === 'number' && { reasoningTokens: thinkingTokens }),
    ...(read > 0 && { cacheReadTokens: read }),
    ...(written > 0 && { cacheWriteTokens: written }),
    ...(writtenForAnHour > 0 && { cacheWrite1hTokens: writtenForAnHour }),
  };
}
