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

  it('refuses a price file that cannot be read or is not of the form', async () => {
    const directory = await makeWorkspace({ 'bad.json': JSON.stringify({ models: { 'openai:x': { input: 'cheap' } } }) });
    expect(() => loadPrices({ AGENT_PRICES: 'missing.json' }, directory)).toThrow(ConfigurationError);
    expect(() => loadPrices({ AGENT_PRICES: 'bad.json' }, directory)).toThrow(/AGENT_PRICES=bad\.json: .*input/s);
  });
});
