import type { Usage } from '../../core/messages';
import { reportedCount } from '../../core/usage';

/** One OpenAI usage report, whichever API's field names it came under. */
export interface OpenAIUsageCounts {
  inputTokens: number;
  outputTokens: number;
  /** The part of inputTokens read from OpenAI's cache: already counted in inputTokens, never billed apart. */
  cachedTokens: number | undefined;
  reasoningTokens: number | undefined;
}

/**
 * OpenAI's usage → neutral usage, the same rules for Chat Completions and Responses: the cached count is read as
 * untrusted and never exceeds the input it is part of (OpenAI writes to its cache at no extra cost, and reports no
 * writes); reasoning and cache reads are left out when there are none.
 */
export function openaiUsage(counts: OpenAIUsageCounts): Usage {
  const { inputTokens, reasoningTokens } = counts;
  const cached = Math.min(reportedCount(counts.cachedTokens), reportedCount(inputTokens));
  return {
    inputTokens,
    outputTokens: counts.outputTokens,
    ...(typeof reasoningTokens === 'number' && reasoningTokens > 0 && { reasoningTokens }),
    ...(cached > 0 && { cacheReadTokens: cached }),
  };
}
