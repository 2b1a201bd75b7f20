import type { Response } from 'openai/resources/responses/responses';
import type { ModelResponse, Usage } from '../../core/messages';
import { openaiUsage } from '../openai/usage';
import { assistantMessageFromParts, type ReplyPart } from '../../core/reply-parts';
import { mapResponsesFinishReason } from './map-finish-reason';

/**
 * Responses API response → neutral response, item by item in order: reasoning
 * items become thinking (their summary, or their reasoning text, to read; the
 * encrypted content and id kept byte for byte to go back), output text joins into
 * the content, function calls become tool calls by call_id. A refusal is the
 * answer, and the finish reason.
 */
export function fromResponsesResponse(response: Response, source: { provider: string; model: string }): ModelResponse {
  let refused = false;
  const parts = response.output.flatMap((item): ReplyPart[] => {
    switch (item.type) {
      case 'reasoning': {
        const text = (item.summary.length > 0 ? item.summary : (item.content ?? [])).map((part) => part.text).join('\n\n');
        return [
          {
            type: 'thinking',
            ...source,
            text,
            id: item.id,
            ...(item.encrypted_content && { signature: item.encrypted_content }),
          },
        ];
      }
      case 'message':
        return item.content.map((part): ReplyPart => {
          if (part.type === 'refusal') refused = true;
          return { type: 'text', text: part.type === 'refusal' ? part.refusal : part.text };
        });
      case 'function_call':
        return [{ type: 'tool_call', call: { id: item.call_id, name: item.name, arguments: item.arguments } }];
      default:
        return [];
    }
  });
  const message = assistantMessageFromParts(parts);
  const finishReason = refused
    ? 'refusal'
    : mapResponsesFinishReason(response.status, response.incomplete_details?.reason, message.toolCalls.length > 0);
  return { message, finishReason, usage: responsesUsage(response.usage) };
}

/** Responses usage → neutral usage: `input_tokens` counts the cached tokens, which `input_tokens_details.cached_tokens` names. */
export function responsesUsage(usage: Response['usage'] | undefined): Usage {
  return openaiUsage({
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cachedTokens: usage?.input_tokens_details?.cached_tokens,
    reasoningTokens: usage?.output_tokens_details?.reasoning_tokens,
  });
}
