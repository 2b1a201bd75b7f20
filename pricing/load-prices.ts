import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ModelPrice, PriceTable } from '../core/cost';
import { ConfigurationError } from '../core/errors';
// Imported (not read from disk) so that the library's build carries it.
import defaultPrices from './default-prices.json';

// Prices in US dollars per million tokens (core/cost.ts).
const modelPriceSchema = z.object({
  input: z.number().min(0),
  output: z.number().min(0),
  cachedInput: z.number().min(0).optional(),
  cacheWrite: z.number().min(0).optional(),
  cacheWrite1h: z.number().min(0).optional(),
  reasoning: z.number().min(0).optional(),
  // A fraction of the online price: a batch that cost more than online, or nothing, is a typo.
  batch: z.number().gt(0).max(1).optional(),
}) satisfies z.ZodType<ModelPrice>;
const priceFileSchema = z.object({ models: z.record(z.string(), modelPriceSchema) });

/**
 * The price table a worker computes costs with: the shipped defaults, then the
 * entries of AGENT_PRICES (a JSON file of the same form, relative to the
 * directory the command ran in), which win. A file that cannot be read or does
 * not match the form fails at start with the reason.
 */
export function loadPrices(env: NodeJS.ProcessEnv = process.env, from = env.INIT_CWD ?? process.cwd()): PriceTable {
  const table = checkPrices(defaultPrices, 'pricing/default-prices.json');
  if (!env.AGENT_PRICES) return table;
  return { ...table, ...readPriceFile(path.resolve(from, env.AGENT_PRICES), `AGENT_PRICES=${env.AGENT_PRICES}`) };
}

function readPriceFile(file: string, label = file): PriceTable {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigurationError(`${label}: cannot read ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(`${label}: not JSON: ${(error as Error).message}`);
  }
  return checkPrices(parsed, label);
}

function checkPrices(parsed: unknown, label: string): PriceTable {
  const check = priceFileSchema.safeParse(parsed);
  if (!check.success) throw new ConfigurationError(`${label}: ${z.prettifyError(check.error)}`);
  return check.data.models;
}
