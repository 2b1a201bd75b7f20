import type { Usage } from './usage';

/**
 * Prices in US dollars per million tokens. Reasoning (thinking) tokens are
 * billed as output unless `reasoning` says otherwise; cached input at `input`
 * unless `cachedInput` says otherwise.
 */
export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
  reasoning?: number;
}

/** `provider:model` → price. A key may also be a bare model name, which any provider matches. */
export type PriceTable = Record<string, ModelPrice>;

// The Responses API bills like Chat Completions: one table serves both OpenAI providers.
const priceAliases: Record<string, string> = { 'openai-responses': 'openai' };

/**
 * The price of a `provider:model`, or undefined when the table has none: an
 * unknown model has an unknown cost, never a cost of zero. A dated snapshot
 * (`anthropic:claude-haiku-4-5-20251001`) takes its family's price.
 */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  const separator = model.indexOf(':');
  const provider = model.slice(0, separator);
  const name = model.slice(separator + 1);
  for (const candidateProvider of [provider, priceAliases[provider]].filter(Boolean)) {
    for (const key of [`${candidateProvider}:${name}`, name]) {
      if (table[key]) return table[key];
    }
    for (const key of [`${candidateProvider}:${snapshotFamily(name)}`, snapshotFamily(name)]) {
      if (table[key]) return table[key];
    }
  }
  return undefined;
}

// `claude-haiku-4-5-20251001`, `gpt-4o-mini-2024-07-18`, `…-latest` are snapshots of the model before the suffix;
// other suffixes (`gpt-4o-mini-realtime`) name other models, with other prices.
function snapshotFamily(name: string): string {
  return name.replace(/-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/, '');
}

/** The tokens of one model call with their cost, or marked as unpriced when the price is unknown. */
export function priced(usage: Usage, price: ModelPrice | undefined): Usage {
  const { costUsd: _unpriced, unpricedCalls: _unknown, ...tokens } = usage;
  if (!price) return { ...tokens, unpricedCalls: 1 };
  // Reasoning tokens are among the output tokens: billed as output, unless the price names a rate of their own.
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens);
  const output = (usage.outputTokens - reasoning) * price.output + reasoning * (price.reasoning ?? price.output);
  return { ...tokens, costUsd: (usage.inputTokens * price.input + output) / 1_000_000 };
}

/** What a call of at most these many tokens can cost: the budget's worst case for the next call. */
export function worstCaseUsd(price: ModelPrice, inputTokens: number, maxOutputTokens: number): number {
  return (inputTokens * price.input + maxOutputTokens * Math.max(price.output, price.reasoning ?? 0)) / 1_000_000;
}

/** `$0.0123`, `$1.50`; an unknown cost says so instead of showing zero. */
export function describeCost(usage: Usage): string {
  const known = usage.costUsd !== undefined ? formatUsd(usage.costUsd) : undefined;
  if (!usage.unpricedCalls) return known ?? '$0';
  const unknown = `${usage.unpricedCalls} call(s) of unknown price`;
  return known ? `${known} + ${unknown}` : `cost unknown (${unknown})`;
}

export function formatUsd(amount: number): string {
  if (amount === 0) return '$0';
  if (amount >= 1) return `$${amount.toFixed(2)}`;
  return `$${amount.toPrecision(3).replace(/0+$/, '').replace(/\.$/, '')}`;
}
