/**
 * Tokens spent, and what they cost. The cost is computed in the model activity
 * from the worker's price table (core/cost.ts) and travels with the tokens, so
 * every sum of usage (a turn, a run, a subagent's spend) is a sum of cost too.
 *
 * `inputTokens` is every token of the prompt the model read, cached or not, for every provider: OpenAI's
 * `prompt_tokens` / `input_tokens` already count cached tokens; Anthropic's `input_tokens` does not, so its cache
 * reads and writes are added to it (providers/anthropic/convert-response.ts). The cache counts are parts of it,
 * billed at their own rates: the tokens billed at the plain input rate are
 * `inputTokens - cacheReadTokens - cacheWriteTokens`.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** What these tokens cost in US dollars, as far as their model's price is known. */
  costUsd?: number;
  /** Model calls whose price is not known: their cost is not in costUsd, which is then a lower bound. */
  unpricedCalls?: number;
  /** Of the output tokens, those the model spent reasoning, when the provider reports them. */
  reasoningTokens?: number;
  /** Of the input tokens, those read from the provider's prompt cache (billed at the cache-read rate). */
  cacheReadTokens?: number;
  /** Of the input tokens, those written to the prompt cache (Anthropic bills writes above the input rate; OpenAI reports none). */
  cacheWriteTokens?: number;
  /** Of the cache writes, those kept for an hour (Anthropic's `ttl: "1h"`, billed at a higher write rate). */
  cacheWrite1hTokens?: number;
}

export const zeroUsage: Usage = { inputTokens: 0, outputTokens: 0 };

// Counts that appear only once some call reported them, so that a usage keeps the shape it always had.
const optionalCounts = ['reasoningTokens', 'cacheReadTokens', 'cacheWriteTokens', 'cacheWrite1hTokens'] as const;

/** Sums two usages; costUsd, unpricedCalls and the optional counts appear only once some call reported them, so a usage keeps its shape. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
  if (a.costUsd !== undefined || b.costUsd !== undefined) sum.costUsd = (a.costUsd ?? 0) + (b.costUsd ?? 0);
  if (a.unpricedCalls || b.unpricedCalls) sum.unpricedCalls = (a.unpricedCalls ?? 0) + (b.unpricedCalls ?? 0);
  for (const count of optionalCounts) {
    if (a[count] !== undefined || b[count] !== undefined) sum[count] = (a[count] ?? 0) + (b[count] ?? 0);
  }
  return sum;
}

/**
 * A token count as a provider reported it, read as untrusted input: anything but a finite count above zero (a
 * missing field, null, a negative or fractional number, a string) is no tokens, so a broken or hostile server can
 * neither make a call look cheaper than free nor poison a sum with NaN.
 */
export function reportedCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
