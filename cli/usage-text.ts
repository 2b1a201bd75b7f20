import { describeCost } from '../core/cost';
import type { Usage } from '../core/messages';

/** `200 in / 40 out tokens, 12 of them thinking, $0.000054`: tokens, the reasoning among them, and what they cost. */
export function describeUsage(usage: Usage): string {
  return `${usage.inputTokens} in / ${usage.outputTokens} out tokens${usageSuffix(usage)}`;
}

/**
 * What follows a token count: `, 12 of them thinking` when the provider
 * reported reasoning tokens, `, 3000 input from cache, 400 cached now` when
 * prompt caching read or wrote some of the input (which the input count
 * includes), `, $0.000054` when a price was involved (an unknown price said
 * as such), or nothing.
 */
export function usageSuffix(usage: Usage): string {
  const reasoning = usage.reasoningTokens ? `, ${usage.reasoningTokens} of them thinking` : '';
  const read = usage.cacheReadTokens ? `, ${usage.cacheReadTokens} input from cache` : '';
  const written = usage.cacheWriteTokens ? `, ${usage.cacheWriteTokens} cached now` : '';
  const cost = usage.costUsd === undefined && !usage.unpricedCalls ? '' : `, ${describeCost(usage)}`;
  return reasoning + read + written + cost;
}
