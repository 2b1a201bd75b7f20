/**
 * Tokens spent, and what they cost. The cost is computed in the model activity
 * from the worker's price table (core/cost.ts) and travels with the tokens, so
 * every sum of usage (a turn, a run, a subagent's spend) is a sum of cost too.
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
}

export const zeroUsage: Usage = { inputTokens: 0, outputTokens: 0 };

/** Sums two usages; costUsd, unpricedCalls and reasoningTokens appear only once some call reported them, so a usage keeps its shape. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
  if (a.costUsd !== undefined || b.costUsd !== undefined) sum.costUsd = (a.costUsd ?? 0) + (b.costUsd ?? 0);
  if (a.unpricedCalls || b.unpricedCalls) sum.unpricedCalls = (a.unpricedCalls ?? 0) + (b.unpricedCalls ?? 0);
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined)
    sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return sum;
}
