import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { describeCost, priceOf, priced, worstCaseUsd, type PriceTable } from '../../core/cost';
import { ConfigurationError } from '../../core/errors';
import { addUsage } from '../../core/usage';
import { loadPrices } from '../../pricing/load-prices';
import { makeWorkspace } from '../support/workspace';

const table: PriceTable = {
  'openai:gpt-4o-mini': { input: 0.15, output: 0.6 },
  'anthropic:claude-haiku-4-5': { input: 1, output: 5 },
  'local-model': { input: 0, output: 0 },
};

describe('priceOf', () => {
  it("finds a provider:model, a dated snapshot of it, the Responses API under OpenAI's prices, and a bare model name", () => {
    expect(priceOf(table, 'openai:gpt-4o-mini')).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf(table, 'anthropic:claude-haiku-4-5-20251001')).toEqual({ input: 1, output: 5 });
    expect(priceOf(table, 'openai-responses:gpt-4o-mini')).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf(table, 'ollama:local-model')).toEqual({ input: 0, output: 0 });
  });

  it('knows no price for a model it does not list: an unknown cost, never zero', () => {
    expect(priceOf(table, 'openai:gpt-4o-mini-2024-07-18')).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf(table, 'openai:gpt-4o-mini-realtime')).toBeUndefined();
    expect(priceOf(table, 'openai:o9')).toBeUndefined();
    expect(priced({ inputTokens: 10, outputTokens: 5 }, undefined)).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      unpricedCalls: 1,
    });
  });
});

describe('costs', () => {
  it('prices tokens per million and adds up with usage', () => {
    const call = priced({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, table['openai:gpt-4o-mini']);
    expect(call.costUsd).toBeCloseTo(0.75, 12);
    const unknown = priced({ inputTokens: 1, outputTokens: 1 }, undefined);
    expect(addUsage(call, unknown)).toEqual({
      inputTokens: 1_000_001,
      outputTokens: 1_000_001,
      costUsd: call.costUsd,
      unpricedCalls: 1,
    });
  });

  it('prices the worst case of the next call at the higher of the output and reasoning prices', () => {
    expect(worstCaseUsd({ input: 1, output: 5, reasoning: 8 }, 1000, 4096)).toBeCloseTo((1000 + 4096 * 8) / 1e6, 12);
  });

  it("prices cache reads and writes at the model's cache rates, and the rest of the input at the input rate", () => {
    const sonnet = loadPrices({})['anthropic:claude-sonnet-4-5'];
    expect(sonnet).toMatchObject({ input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 });
    // 1M input tokens: 500k read, 200k written for 5 minutes, 100k for an hour, 200k plain.
    const call = priced(
      {
        inputTokens: 1_000_000,
        outputTokens: 0,
        cacheReadTokens: 500_000,
        cacheWriteTokens: 300_000,
        cacheWrite1hTokens: 100_000,
      },
      sonnet,
    );
    expect(call.costUsd).toBeCloseTo(0.2 * 3 + 0.5 * 0.3 + 0.2 * 3.75 + 0.1 * 6, 12);
    // OpenAI bills no write: a price without write rates charges written tokens as input.
    const mini = priced(
      { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 600_000 },
      loadPrices({})['openai:gpt-4o-mini'],
    );
    expect(mini.costUsd).toBeCloseTo(0.4 * 0.15 + 0.6 * 0.075, 12);
  });

  it('never prices below zero when a server reports more cached tokens than it read', () => {
    const price = { input: 1, output: 1, cachedInput: 0.1, cacheWrite: 1.25 };
    const call = priced(
      { inputTokens: 100, outputTokens: 0, cacheReadTokens: 500, cacheWriteTokens: 500, cacheWrite1hTokens: -5 },
      price,
    );
    expect(call.costUsd).toBeCloseTo((100 * 0.1) / 1e6, 12);
  });

  it("prices a batch call at the model's batch fraction, cache rates included, and online calls in full", () => {
    const price = { input: 2, output: 8, cachedInput: 0.5, batch: 0.5 };
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 500_000 };
    expect(priced(usage, price).costUsd).toBeCloseTo(1 + 0.25 + 8, 12);
    expect(priced(usage, price, { batch: true }).costUsd).toBeCloseTo((1 + 0.25 + 8) / 2, 12);
    expect(priced(usage, { input: 2, output: 8 }, { batch: true }).costUsd).toBeCloseTo(2 + 8, 12);
    expect(worstCaseUsd(price, 1000, 1000, { batch: true })).toBeCloseTo((1000 * 2 + 1000 * 8) / 2 / 1e6, 12);
    // The models of the providers with a batch API (an AI SDK model's runs are never batched: docs/providers.md).
    const batchable = Object.keys(loadPrices({})).filter((model) => /^(openai|anthropic):/.test(model));
    for (const model of batchable) expect(loadPrices({})[model].batch).toBe(0.5);
  });

  it('prices the worst case of the next call at the dearest cache write it may make, and no cache read', () => {
    const price = { input: 1, output: 5, cachedInput: 0.1, cacheWrite: 1.25, cacheWrite1h: 2 };
    expect(worstCaseUsd(price, 1000, 0)).toBeCloseTo(1000 / 1e6, 12);
    expect(worstCaseUsd(price, 1000, 0, { cacheWrites: '5m' })).toBeCloseTo(1250 / 1e6, 12);
    expect(worstCaseUsd(price, 1000, 0, { cacheWrites: '1h' })).toBeCloseTo(2000 / 1e6, 12);
    expect(worstCaseUsd({ input: 1, output: 5 }, 1000, 0, { cacheWrites: '1h' })).toBeCloseTo(1000 / 1e6, 12);
  });

  it('adds cache counts up with usage, and leaves them out while no call reported them', () => {
    expect(addUsage({ inputTokens: 1, outputTokens: 1 }, { inputTokens: 2, outputTokens: 2 })).toEqual({
      inputTokens: 3,
      outputTokens: 3,
    });
    expect(
      addUsage(
        { inputTokens: 10, outputTokens: 1, cacheReadTokens: 4 },
        { inputTokens: 20, outputTokens: 2, cacheWriteTokens: 8, cacheWrite1hTokens: 8 },
      ),
    ).toEqual({ inputTokens: 30, outputTokens: 3, cacheReadTokens: 4, cacheWriteTokens: 8, cacheWrite1hTokens: 8 });
  });

  it('describes a cost, an unknown one as unknown', () => {
    expect(describeCost({ inputTokens: 1, outputTokens: 1, costUsd: 0.0151 })).toBe('$0.0151');
    expect(describeCost({ inputTokens: 1, outputTokens: 1, costUsd: 2.5 })).toBe('$2.50');
    expect(describeCost({ inputTokens: 1, outputTokens: 1, unpricedCalls: 2 })).toBe('cost unknown (2 call(s) of unknown price)');
    expect(describeCost({ inputTokens: 1, outputTokens: 1, costUsd: 0.01, unpricedCalls: 1 })).toBe(
      '$0.01 + 1 call(s) of unknown price',
    );
  });
});

describe('loadPrices', () => {
  it('ships prices for the current OpenAI and Anthropic models', () => {
    const prices = loadPrices({});
    for (const model of ['openai:gpt-4o-mini', 'openai:gpt-5', 'anthropic:claude-sonnet-4-5', 'anthropic:claude-haiku-4-5']) {
      expect(priceOf(prices, model)).toMatchObject({ input: expect.any(Number), output: expect.any(Number) });
    }
  });

  it('lets AGENT_PRICES add models and override the shipped prices', async () => {
    const directory = await makeWorkspace();
    await writeFile(
      path.join(directory, 'prices.json'),
      JSON.stringify({ models: { 'openai:gpt-4o-mini': { input: 9, output: 9 }, 'ollama:llama3': { input: 0, output: 0 } } }),
    );
    const prices = loadPrices({ AGENT_PRICES: './prices.json' }, directory);
    expect(prices['openai:gpt-4o-mini']).toEqual({ input: 9, output: 9 });
    expect(prices['ollama:llama3']).toEqual({ input: 0, output: 0 });
    expect(prices['anthropic:claude-haiku-4-5']).toBeDefined();
  });

  it('refuses a batch fraction that is not a discount', async () => {
    const directory = await makeWorkspace({
      'batch.json': JSON.stringify({ models: { 'openai:x': { input: 1, output: 1, batch: 2 } } }),
    });
    expect(() => loadPrices({ AGENT_PRICES: 'batch.json' }, directory)).toThrow(/batch/);
  });

  it('refuses a price file that cannot be read or is not of the form', async () => {
    const directory = await makeWorkspace({ 'bad.json': JSON.stringify({ models: { 'openai:x': { input: 'cheap' } } }) });
    expect(() => loadPrices({ AGENT_PRICES: 'missing.json' }, directory)).toThrow(ConfigurationError);
    expect(() => loadPrices({ AGENT_PRICES: 'bad.json' }, directory)).toThrow(/AGENT_PRICES=bad\.json: .*input/s);
  });
});
