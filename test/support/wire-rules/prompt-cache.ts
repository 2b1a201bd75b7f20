import { createHash } from 'node:crypto';
import type { FakeStep } from '../fake-model-server';

/**
 * The providers' prompt caches, modelled so that tests and benchmarks can measure caching against the fake server:
 * what each API would report as cached for a request, given the requests before it, and what it refuses.
 *
 * Tokens are counted as a token per four characters of each block's JSON (a documented approximation: no tokenizer).
 *
 * Anthropic (Messages): a request's prefix is its tools, system blocks and message blocks, in that order. A block
 * marked `cache_control` is a breakpoint. At each breakpoint the API looks for the longest prefix it has cached,
 * ending at that breakpoint or at one of the 20 blocks before it; what it finds is read (`cache_read_input_tokens`).
 * Each breakpoint whose prefix reaches the model's minimum and lies beyond what was read is written
 * (`cache_creation_input_tokens`, split by time to live in `cache_creation`). An entry lives 5 minutes (or 1 hour
 * with `ttl: "1h"`) from its last use. `input_tokens` is then what remains after the last breakpoint. With no
 * breakpoint, or none that reads or writes, the scripted usage is left as it is.
 *
 * OpenAI (Chat Completions and Responses): a request with a `prompt_cache_key` whose prompt (tools, then the
 * messages or input items) shares 1024 tokens or more with an earlier prompt under the same key and model, within
 * its retention (5 minutes in memory, 24 hours with `prompt_cache_retention: "24h"`), reports the shared part in
 * 128-token steps as `cached_tokens`, and the whole prompt as its input. Without a key, the real API routes by a
 * hash of the prefix across many machines, which one fake cannot model: it reports nothing cached (the pessimistic case).
 */
export class PromptCacheModel {
  private readonly anthropicEntries = new Map<string, { expiresAt: number; ttlMs: number }>();
  private readonly openaiPrompts = new Map<string, Array<{ prompt: string; expiresAt: number; ttlMs: number }>>();
  private clockOffsetMs = 0;

  /** Moves this cache's clock forward (entries expire as if that much time had passed). */
  advance(milliseconds: number): void {
    this.clockOffsetMs += milliseconds;
  }

  reset(): void {
    this.anthropicEntries.clear();
    this.openaiPrompts.clear();
    this.clockOffsetMs = 0;
  }

  private now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** The usage the Messages API reports for this (valid) request, updating the cache; undefined when caching plays no part. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
  anthropicUsage(body: any): AnthropicCacheUsage | undefined {
    const blocks = anthropicPrefixBlocks(body);
    const breakpoints = blocks.flatMap((block, index) => (block.ttl ? [{ index, ttl: block.ttl }] : []));
    if (breakpoints.length === 0) return undefined;
    const cumulative: number[] = [];
    const hashes: string[] = [];
    let tokens = 0;
    let hash = createHash('sha256').update(String(body.model)).digest('hex');
    for (const block of blocks) {
      tokens += countTokens(block.canonical);
      hash = createHash('sha256').update(hash).update(block.canonical).digest('hex');
      cumulative.push(tokens);
      hashes.push(hash);
    }
    const now = this.now();
    let readEnd = -1;
    for (const { index } of breakpoints) {
      for (let position = index; position >= Math.max(0, index - lookbackBlocks); position--) {
        const entry = this.anthropicEntries.get(hashes[position]);
        if (entry && entry.expiresAt > now) {
          readEnd = Math.max(readEnd, position);
          break;
        }
      }
    }
    const read = readEnd >= 0 ? cumulative[readEnd] : 0;
    if (readEnd >= 0) {
      const entry = this.anthropicEntries.get(hashes[readEnd])!;
      entry.expiresAt = now + entry.ttlMs;
    }
    const minimum = anthropicMinimumTokens(String(body.model));
    const written = { '5m': 0, '1h': 0 };
    let writtenEnd = read;
    for (const { index, ttl } of breakpoints) {
      if (index <= readEnd || cumulative[index] < minimum) continue;
      written[ttl] += cumulative[index] - writtenEnd;
      writtenEnd = cumulative[index];
      const ttlMs = ttl === '1h' ? hourMs : fiveMinutesMs;
      this.anthropicEntries.set(hashes[index], { expiresAt: now + ttlMs, ttlMs });
    }
    if (read === 0 && writtenEnd === 0) return undefined;
    return {
      input_tokens: tokens - writtenEnd,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: writtenEnd - read,
      cache_creation: { ephemeral_5m_input_tokens: written['5m'], ephemeral_1h_input_tokens: written['1h'] },
    };
  }

  /** The prompt and cached tokens an OpenAI API reports for this (valid) request, updating the cache; undefined without a key. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
  openaiUsage(body: any): { promptTokens: number; cachedTokens: number } | undefined {
    const key = body?.prompt_cache_key;
    if (typeof key !== 'string') return undefined;
    const prompt = openaiPrompt(body);
    const promptTokens = countTokens(prompt);
    const now = this.now();
    const scope = `${String(body.model)}\n${key}`;
    const live = (this.openaiPrompts.get(scope) ?? []).filter((entry) => entry.expiresAt > now);
    let shared = 0;
    for (const entry of live) {
      const common = commonPrefixLength(entry.prompt, prompt);
      if (common > shared) shared = common;
      if (common > 0) entry.expiresAt = now + entry.ttlMs;
    }
    const sharedTokens = Math.floor(shared / charactersPerToken);
    const cachedTokens = sharedTokens >= openaiMinimumTokens ? Math.floor(sharedTokens / openaiIncrement) * openaiIncrement : 0;
    const ttlMs = body.prompt_cache_retention === '24h' ? dayMs : fiveMinutesMs;
    // The newest prompts are what later calls extend; a bounded list keeps a long benchmark cheap.
    this.openaiPrompts.set(scope, [...live, { prompt, expiresAt: now + ttlMs, ttlMs }].slice(-keptPromptsPerKey));
    return { promptTokens, cachedTokens };
  }
}

export interface AnthropicCacheUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

const charactersPerToken = 4;
const lookbackBlocks = 20;
const fiveMinutesMs = 5 * 60_000;
const hourMs = 60 * 60_000;
const dayMs = 24 * hourMs;
const openaiMinimumTokens = 1024;
const openaiIncrement = 128;
const keptPromptsPerKey = 8;
export const maxAnthropicBreakpoints = 4;
const maxPromptCacheKeyLength = 64;

/**
 * The input tokens of a request as this fake counts them when it models caching (the same count for a request that
 * reads nothing): Anthropic's tools, system and message blocks, OpenAI's tools and messages or input items. A
 * responder that scripts it as the reply's input count makes cached and uncached calls comparable.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
export function fakeInputTokens(path: string, body: any): number {
  if (path.includes('/messages'))
    return anthropicPrefixBlocks(body).reduce((sum, block) => sum + countTokens(block.canonical), 0);
  return countTokens(openaiPrompt(body));
}

/** Tokens of a text, as this fake counts them: a token per four characters, rounded up. */
export function countTokens(text: string): number {
  return Math.ceil(text.length / charactersPerToken);
}

/** The shortest prefix Anthropic caches, per model (its prompt-caching docs); 1024 for any other name. */
export function anthropicMinimumTokens(model: string): number {
  if (/claude-(opus-4-[56]|haiku-4-5)/.test(model)) return 4096;
  if (/claude-(sonnet-4-6|3-5-haiku|3-haiku|haiku-3)/.test(model)) return 2048;
  return 1024;
}

interface PrefixBlock {
  path: string;
  canonical: string;
  cacheControl: unknown;
  ttl?: '5m' | '1h';
  type?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
function anthropicPrefixBlocks(body: any): PrefixBlock[] {
  const blocks: PrefixBlock[] = [];
  const add = (path: string, block: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const { cache_control: cacheControl, ...content } = block;
    const ttl = cacheControl ? ((cacheControl as { ttl?: '5m' | '1h' }).ttl ?? '5m') : undefined;
    blocks.push({
      path,
      canonical: JSON.stringify({ ...extra, ...content }),
      cacheControl,
      ttl,
      type: typeof block.type === 'string' ? block.type : undefined,
    });
  };
  (Array.isArray(body?.tools) ? body.tools : []).forEach((tool: Record<string, unknown>, index: number) =>
    add(`tools.${index}`, tool, { tool: true }),
  );
  const system =
    typeof body?.system === 'string' ? [{ type: 'text', text: body.system }] : Array.isArray(body?.system) ? body.system : [];
  system.forEach((block: Record<string, unknown>, index: number) => add(`system.${index}`, block, { system: true }));
  (Array.isArray(body?.messages) ? body.messages : []).forEach((message: { role: string; content: unknown }, index: number) => {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    (Array.isArray(content) ? content : []).forEach((block: Record<string, unknown>, position: number) =>
      add(`messages.${index}.content.${position}`, block, { role: message.role }),
    );
  });
  return blocks;
}

/**
 * What the Messages API refuses about cache_control, in its words: more than 4 breakpoints, a type other than
 * ephemeral, a ttl other than 5m or 1h, other fields, a breakpoint on a thinking block, and a 1-hour entry after a
 * 5-minute one (longer lives must come first, in the order tools, system, messages).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
export function anthropicCacheProblem(body: any): string | undefined {
  const marked = anthropicPrefixBlocks(body).filter((block) => block.cacheControl !== undefined && block.cacheControl !== null);
  if (marked.length > maxAnthropicBreakpoints) {
    return `A maximum of ${maxAnthropicBreakpoints} blocks with cache_control may be provided. Found ${marked.length}.`;
  }
  let seenFiveMinutes = false;
  for (const block of marked) {
    const control = block.cacheControl as Record<string, unknown>;
    if (typeof control !== 'object' || Array.isArray(control))
      return `${block.path}.cache_control: Input should be a valid dictionary`;
    if (control.type !== 'ephemeral') return `${block.path}.cache_control.type: Input should be 'ephemeral'`;
    const extra = Object.keys(control).find((key) => key !== 'type' && key !== 'ttl');
    if (extra) return `${block.path}.cache_control.ephemeral.${extra}: Extra inputs are not permitted`;
    if (control.ttl !== undefined && control.ttl !== '5m' && control.ttl !== '1h') {
      return `${block.path}.cache_control.ephemeral.ttl: Input should be '5m' or '1h'`;
    }
    if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      return `${block.path}.${block.type}.cache_control: Extra inputs are not permitted`;
    }
    if (block.ttl === '1h' && seenFiveMinutes) {
      return "A cache_control block with ttl='1h' must not come after a cache_control block with ttl='5m'. Note that the order of processing is: 'tools', 'system', 'messages'.";
    }
    if (block.ttl === '5m') seenFiveMinutes = true;
  }
  return undefined;
}

/** What both OpenAI APIs refuse about prompt caching, in their words: a key that is not a string or is too long, an unknown retention. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
export function openaiCacheProblem(body: any): string | undefined {
  const key = body?.prompt_cache_key;
  if (key !== undefined && key !== null) {
    if (typeof key !== 'string') {
      return `Invalid type for 'prompt_cache_key': expected a string, but got ${Array.isArray(key) ? 'an array' : typeof key === 'number' ? 'an integer' : `a ${typeof key}`} instead.`;
    }
    if (key.length > maxPromptCacheKeyLength) {
      return `Invalid 'prompt_cache_key': string too long. Expected a string with maximum length ${maxPromptCacheKeyLength}, but got a string with length ${key.length} instead.`;
    }
  }
  const retention = body?.prompt_cache_retention;
  if (retention !== undefined && retention !== null && retention !== 'in_memory' && retention !== '24h') {
    return `Invalid value: '${String(retention)}'. Supported values are: 'in_memory' and '24h'.`;
  }
  return undefined;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
function openaiPrompt(body: any): string {
  const items = Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : [body.input];
  const head = [JSON.stringify(body.tools ?? []), ...(body.instructions ? [JSON.stringify(body.instructions)] : [])];
  return [...head, ...items.map((item: unknown) => JSON.stringify(item))].join('\n');
}

function commonPrefixLength(a: string, b: string): number {
  const most = Math.min(a.length, b.length);
  let length = 0;
  while (length < most && a.charCodeAt(length) === b.charCodeAt(length)) length++;
  return length;
}

/**
 * A scripted 200 reply with the usage the API would report given its cache: Anthropic's cache reads and writes
 * (and the input left after them), OpenAI's cached tokens (and the whole prompt as input). A reply the cache plays
 * no part in keeps its scripted usage.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
export function withCacheUsage(cache: PromptCacheModel, path: string, body: any, step: FakeStep): FakeStep {
  if ('gate' in step) return { gate: step.gate, then: withCacheUsage(cache, path, body, step.then) };
  if (!('json' in step) || (step.status ?? 200) !== 200) return step;
  const json = step.json as { usage?: Record<string, unknown> };
  if (!json || typeof json !== 'object' || !json.usage) return step;
  const usage = json.usage;
  const output = Number(usage.output_tokens ?? usage.completion_tokens ?? 0);
  if (path.includes('/messages')) {
    const cached = cache.anthropicUsage(body);
    return cached ? { ...step, json: { ...json, usage: { ...usage, ...cached } } } : step;
  }
  const openai = cache.openaiUsage(body);
  if (!openai || openai.cachedTokens === 0) return step;
  const total = openai.promptTokens + output;
  if (path.includes('/chat/completions')) {
    const details = { prompt_tokens_details: { cached_tokens: openai.cachedTokens } };
    return {
      ...step,
      json: { ...json, usage: { ...usage, prompt_tokens: openai.promptTokens, ...details, total_tokens: total } },
    };
  }
  const details = { input_tokens_details: { cached_tokens: openai.cachedTokens } };
  return { ...step, json: { ...json, usage: { ...usage, input_tokens: openai.promptTokens, ...details, total_tokens: total } } };
}
