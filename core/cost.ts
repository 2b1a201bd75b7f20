import type { Usage } from './usage';

/**
 * Prices in US dollars per million tokens. Reasoning (thinking) tokens are
 * billed as output unless `reasoning` says otherwise; input read from the prompt
 * cache at `cachedInput`, input written to it at `cacheWrite` (or `cacheWrite1h`
 * for a one-hour entry), each at `input` when the table gives no rate of its own.
 */
export interface ModelPrice {
  input: number;
  output: number;
  /** Input read from the prompt cache (Anthropic: 0.1x input; OpenAI: its cached-input price). */
  cachedInput?: number;
  /** Input written to the prompt cache with the default time to live, five minutes (Anthropic: 1.25x input; OpenAI writes cost nothing extra). */
  cacheWrite?: number;
  /** Input written to the prompt cache for an hour (Anthropic: 2x input); `cacheWrite` when absent. */
  cacheWrite1h?: number;
  reasoning?: number;
  /**
   * What a call through the provider's batch API costs, as a fraction of the online price of the same tokens (both
   * OpenAI and Anthropic: 0.5, cache rates included). Absent: batch calls are priced as online ones.
   */
  batch?: number;
}

/** How a call was made, as far as its price depends on it. */
export interface PricingOptions {
  /** The call went through the provider's batch API: priced at the model's `batch` fraction. */
  batch?: boolean;
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

/**
 * The tokens of one model call with their cost, or marked as unpriced when the price is unknown. The cache counts
 * are parts of the input tokens (core/usage.ts), each billed at its own rate; counts a provider got wrong (more
 * cached than read in all) are clamped, so a hostile or broken server can make a call cheaper than zero never.
 */
export function priced(usage: Usage, price: ModelPrice | undefined, options: PricingOptions = {}): Usage {
  const { costUsd: _unpriced, unpricedCalls: _unknown, ...tokens } = usage;
  if (!price) return { ...tokens, unpricedCalls: 1 };
  // Reasoning tokens are among the output tokens: billed as output, unless the price names a rate of their own.
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens);
  const output = (usage.outputTokens - reasoning) * price.output + reasoning * (price.reasoning ?? price.output);
  const read = clamp(usage.cacheReadTokens, usage.inputTokens);
  const written = clamp(usage.cacheWriteTokens, usage.inputTokens - read);
  const writtenForAnHour = clamp(usage.cacheWrite1hTokens, written);
  const input =
    (usage.inputTokens - read - written) * price.input +
    read * (price.cachedInput ?? price.input) +
    (written - writtenForAnHour) * (price.cacheWrite ?? price.input) +
    writtenForAnHour * (price.cacheWrite1h ?? price.cacheWrite ?? price.input);
  const fraction = options.batch ? (price.batch ?? 1) : 1;
  return { ...tokens, costUsd: ((input + output) * fraction) / 1_000_000 };
}

function clamp(count: number | undefined, most: number): number {
  return Math.max(0, Math.min(count ?? 0, most));
}

/**
 * What a call of at most these many tokens can cost: the budget's worst case for the next call. Nothing is assumed
 * to come from the cache (an entry may have expired), and every input token may be written to it at the dearest
 * write rate the call could pay: `cacheWrite1h` only when it asks for one-hour entries.
 */
export function worstCaseUsd(
  price: ModelPrice,
  inputTokens: number,
  maxOutputTokens: number,
  options: PricingOptions & { cacheWrites?: 'none' | '5m' | '1h' } = {},
): number {
  const writeRate =
    options.cacheWrites === '1h'
      ? (price.cacheWrite1h ?? price.cacheWrite ?? price.input)
      : options.cacheWrites === '5m'
        ? (price.cacheWrite ?? price.input)
        : price.input;
  const fraction = options.batch ? (price.batch ?? 1) : 1;
  const cost = inputTokens * Math.max(price.input, writeRate) + maxOutputTokens * Math.max(price.output, price.reasoning ?? 0);
  return (cost * fraction) / 1_000_000;
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
