import { createHash } from 'node:crypto';
import type { ModelSettings } from '../../core/agent-spec';
import { ConfigurationError } from '../../core/errors';

/** OpenAI's limit on prompt_cache_key (a longer key is refused with 400). */
export const maxPromptCacheKeyLength = 64;

/**
 * What OpenAI's prompt caching cannot do: its cache lives in memory for minutes (up to an hour, its choice) or, with
 * `prompt_cache_retention: "24h"`, a day; an hour cannot be asked for.
 */
export const openaiPromptCacheTtlProblem =
  'modelSettings.promptCache "1h" is not offered by OpenAI, which caches in memory ("5m": minutes, up to an hour at its discretion) or for a day ("24h")';

export function openaiPromptCacheProblem(settings: ModelSettings): string | undefined {
  return settings.promptCache === '1h' ? openaiPromptCacheTtlProblem : undefined;
}

/**
 * The prompt-cache fields of a Chat Completions or Responses request. OpenAI caches every prompt of 1024 tokens or
 * more on its own; `prompt_cache_key` makes the calls of one session land on the same cache (requests are routed by
 * a hash of the prefix and this key). The key is derived from the session (the run's workflow id, kept across
 * continue-as-new; a fork is a new session with a key of its own), hashed: a workflow id may hold what a user typed,
 * and may be longer than the 64 characters OpenAI accepts. `off` sends no key (OpenAI's automatic caching cannot be
 * turned off); `24h` asks for extended retention.
 */
export function promptCacheFields(
  settings: ModelSettings,
  sessionKey: string | undefined,
): { prompt_cache_key?: string; prompt_cache_retention?: '24h' } {
  const setting = settings.promptCache;
  if (setting === 'off') return {};
  if (setting === '1h') throw new ConfigurationError(openaiPromptCacheTtlProblem);
  return {
    ...(sessionKey !== undefined && { prompt_cache_key: promptCacheKey(sessionKey) }),
    ...(setting === '24h' && { prompt_cache_retention: '24h' as const }),
  };
}

export function promptCacheKey(sessionKey: string): string {
  return `durable-agent-${createHash('sha256').update(sessionKey).digest('hex').slice(0, 40)}`;
}
