import type { LanguageModelV4StreamPart, LanguageModelV4Usage, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import { AgentError } from '../../core/errors';
import type { FinishReason, ModelResponse, Usage } from '../../core/messages';
import { assistantMessageFromParts, type ReplyPart } from '../../core/reply-parts';
import { thinkingSeparator } from '../../core/stream-events';
import { reportedCount } from '../../core/usage';
import { toolCallMetadataId } from './convert-messages';

/** Where the reply came from (its thinking is marked so), and who hears it as it is written. */
export interface StreamReading {
  source: { provider: string; model: string };
  onTextDelta?(text: string): void;
  onThinkingDelta?(text: string): void;
  onUsage?(usage: Usage): void;
}

/** A stream that ended without saying it was done: a connection cut mid-answer, retried like one. */
export class InterruptedStreamError extends AgentError {
  constructor(what: string) {
    super(`the model's stream ended ${what}`);
  }
}

/**
 * The parts of one `doStream` (LanguageModelV4StreamPart; v3's are the same for these) → the neutral response, read
 * once, here. Text and readable reasoning are reported as they arrive; reasoning keeps the provider metadata it came
 * with (Gemini's thought signature) as its signature, and a tool call's metadata is kept in a thinking part of its
 * own just before it (toolCallMetadataId). An `error` part is thrown as it is (an APICallError for the activity to
 * classify); a stream that ends without its `finish` part, or whose finish says `error` or `interrupted`, fails to
 * be retried. Tool calls the provider ran itself are not ours to run, and are left out.
 */
export async function readLanguageModelStream(stream: ReadableStream<unknown>, reading: StreamReading): Promise<ModelResponse> {
  const parts: ReplyPart[] = [];
  const reasoning = new Map<string, { text: string; metadata?: SharedV4ProviderMetadata }>();
  let reportedThinking = false;
  let finish: Extract<LanguageModelV4StreamPart, { type: 'finish' }> | undefined;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value as LanguageModelV4StreamPart;
      switch (part.type) {
        case 'text-delta':
          if (!part.delta) break;
          parts.push({ type: 'text', text: part.delta });
          reading.onTextDelta?.(part.delta);
          break;
        case 'reasoning-start':
          reasoning.set(part.id, { text: '', metadata: part.providerMetadata });
          break;
        case 'reasoning-delta': {
          const block = reasoning.get(part.id) ?? { text: '' };
          reasoning.set(part.id, { text: block.text + part.delta, metadata: part.providerMetadata ?? block.metadata });
          if (part.delta && reading.onThinkingDelta) {
            reading.onThinkingDelta(reportedThinking && block.text === '' ? `${thinkingSeparator}${part.delta}` : part.delta);
            reportedThinking = true;
          }
          break;
        }
        case 'reasoning-end': {
          const block = reasoning.get(part.id) ?? { text: '' };
          reasoning.delete(part.id);
          const metadata = part.providerMetadata ?? block.metadata;
          if (block.text || metadata) parts.push({ type: 'thinking', ...reading.source, text: block.text, ...signed(metadata) });
          break;
        }
        case 'tool-call':
          if (part.providerExecuted) break;
          if (part.providerMetadata)
            parts.push({
              type: 'thinking',
              ...reading.source,
              text: '',
              id: toolCallMetadataId,
              ...signed(part.providerMetadata),
            });
          parts.push({ type: 'tool_call', call: { id: part.toolCallId, name: part.toolName, arguments: part.input } });
          break;
        case 'finish':
          finish = part;
          break;
        case 'error':
          throw part.error;
        default:
          // stream-start, response-metadata, tool input deltas (the tool-call part has the whole input), sources,
          // files and raw chunks: nothing the neutral reply holds.
          break;
      }
    }
  } finally {
    reader.releaseLock();
  }
  if (!finish) throw new InterruptedStreamError('before its finish');
  // Reported before the reply is judged: an answer cut short was still paid for.
  const usage = neutralUsage(finish.usage);
  reading.onUsage?.(usage);
  const reason = finish.finishReason.unified;
  if (reason === 'error' || reason === 'interrupted')
    throw new InterruptedStreamError(
      `with finish reason "${reason}"${finish.finishReason.raw ? ` (${finish.finishReason.raw})` : ''}`,
    );
  return { message: assistantMessageFromParts(joinText(parts)), finishReason: neutralFinishReason(reason), usage };
}

function signed(metadata: SharedV4ProviderMetadata | undefined): { signature?: string } {
  return metadata ? { signature: JSON.stringify(metadata) } : {};
}

/** Consecutive text deltas as one text part (assistantMessageFromParts positions thinking by characters anyway). */
function joinText(parts: ReplyPart[]): ReplyPart[] {
  const joined: ReplyPart[] = [];
  for (const part of parts) {
    const last = joined[joined.length - 1];
    if (part.type === 'text' && last?.type === 'text') last.text += part.text;
    else joined.push(part.type === 'text' ? { ...part } : part);
  }
  return joined;
}

function neutralFinishReason(reason: 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'other'): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content-filter':
      return 'content_filter';
    case 'tool-calls':
      return 'tool_calls';
    case 'other':
      return 'other';
    default: {
      const exhaustive: never = reason;
      return exhaustive;
    }
  }
}

/**
 * The spec's usage → neutral usage. Neutral `inputTokens` is every token of the prompt, cached or not
 * (core/usage.ts): the spec's `total`, or its parts added up when a package reports only those. Counts are read as
 * untrusted input (reportedCount), and the optional ones appear only when above zero.
 */
export function neutralUsage(usage: LanguageModelV4Usage | undefined): Usage {
  const input = usage?.inputTokens;
  const output = usage?.outputTokens;
  const read = reportedCount(input?.cacheRead);
  const written = reportedCount(input?.cacheWrite);
  const inputTokens = input?.total !== undefined ? reportedCount(input.total) : reportedCount(input?.noCache) + read + written;
  const reasoningTokens = reportedCount(output?.reasoning);
  const outputTokens = output?.total !== undefined ? reportedCount(output.total) : reportedCount(output?.text) + reasoningTokens;
  return {
    inputTokens,
    outputTokens,
    ...(reasoningTokens > 0 && { reasoningTokens }),
    ...(read > 0 && { cacheReadTokens: read }),
    ...(written > 0 && { cacheWriteTokens: written }),
  };
}
