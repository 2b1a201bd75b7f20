import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import type { PromptCacheSetting } from '../../core/agent-spec';
import { ConfigurationError } from '../../core/errors';

/** Anthropic's limit: a request may mark at most this many blocks with cache_control. */
export const maxCacheBreakpoints = 4;

/**
 * The shortest prefix Anthropic caches, in tokens, per model family (its prompt-caching docs): a breakpoint on a
 * shorter prefix is accepted and ignored. Models not listed take the smallest, so caching is never withheld.
 */
const minimumCacheableTokens: Array<[RegExp, number]> = [
  [/claude-(opus-4-[56]|haiku-4-5)/, 4096],
  [/claude-(sonnet-4-6|3-5-haiku|3-haiku|haiku-3)/, 2048],
];
const smallestMinimum = 1024;

export function minimumCacheableTokensOf(model: string): number {
  return minimumCacheableTokens.find(([family]) => family.test(model))?.[1] ?? smallestMinimum;
}

/**
 * Marks where Anthropic should cache the request's prefix, derived from the request alone (so it is the same after
 * a summary, a continue-as-new or a worker restart, and no workflow state is involved):
 *
 * 1. the end of the tools and system prompt (the system's last block, or the last tool when there is no system):
 *    the part every call of the agent shares, still read from the cache after a summary rewrote the conversation;
 * 2. the newest point the previous call wrote: the last user message before the last assistant reply, which this
 *    call reads back whatever the reply and its tool results added (Anthropic looks back only 20 blocks from a
 *    breakpoint, and a round of many tool results adds more);
 * 3. the last message: written now, read by the next call.
 *
 * Never more than Anthropic's 4 in all, counting any the request already has. A point whose prefix is surely below
 * the model's minimum (fewer UTF-8 bytes than the minimum's tokens: no token is shorter than a byte) gets none; one
 * that turns out short after all is ignored by the API and costs nothing. Thinking blocks cannot be marked; the
 * marked block is the message's last that can.
 */
export function withCacheBreakpoints(
  body: MessageCreateParamsNonStreaming,
  setting: PromptCacheSetting | undefined,
): MessageCreateParamsNonStreaming {
  if (setting === 'off') return body;
  // Refused at start (the provider's modelSettingsProblem); a request that gets here anyway fails in words.
  if (setting === '24h') throw new ConfigurationError(anthropicPromptCacheTtlProblem);
  const marker: CacheControlEphemeral = setting === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  let room = maxCacheBreakpoints - breakpointsIn(body);
  const minimumBytes = minimumCacheableTokensOf(body.model);
  const tools = body.tools ? [...body.tools] : undefined;
  let system = body.system;
  const messages = [...body.messages];
  const prefixBytes = new PrefixBytes(tools, system, messages);

  const newest = messages.length - 1;
  const previous = lastUserBefore(messages, lastAssistant(messages));
  const candidates: Array<() => boolean> = [
    () => {
      if (prefixBytes.throughSystem() < minimumBytes) return false;
      if (typeof system === 'string' || (Array.isArray(system) && system.length > 0)) {
        system = markedSystem(system, marker);
        return true;
      }
      if (tools && tools.length > 0 && 'input_schema' in tools[tools.length - 1]) {
        tools[tools.length - 1] = { ...(tools[tools.length - 1] as Tool), cache_control: marker };
        return true;
      }
      return false;
    },
    () => markMessage(messages, newest, marker, prefixBytes.throughMessage(newest) >= minimumBytes),
    () => previous >= 0 && markMessage(messages, previous, marker, prefixBytes.throughMessage(previous) >= minimumBytes),
  ];
  for (const mark of candidates) {
    if (room <= 0) break;
    if (mark()) room--;
  }
  return {
    ...body,
    ...(tools && { tools }),
    ...(system !== undefined && { system }),
    messages,
  };
}

/** What Anthropic's prompt caching cannot do: it keeps entries for 5 minutes or an hour, no longer. */
export const anthropicPromptCacheTtlProblem =
  'modelSettings.promptCache "24h" is not offered by Anthropic, which caches for 5 minutes ("5m") or an hour ("1h")';

function markedSystem(system: string | TextBlockParam[], marker: CacheControlEphemeral): TextBlockParam[] {
  const blocks: TextBlockParam[] = typeof system === 'string' ? [{ type: 'text', text: system }] : [...system];
  blocks[blocks.length - 1] = { ...blocks[blocks.length - 1], cache_control: marker };
  return blocks;
}

function markMessage(messages: MessageParam[], index: number, marker: CacheControlEphemeral, longEnough: boolean): boolean {
  if (!longEnough || index < 0) return false;
  const message = messages[index];
  const blocks: ContentBlockParam[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
  const position = lastIndexWhere(blocks, canCarryMarker);
  if (position < 0) return false;
  if ((blocks[position] as { cache_control?: unknown }).cache_control) return false;
  blocks[position] = { ...blocks[position], cache_control: marker } as ContentBlockParam;
  messages[index] = { ...message, content: blocks } as MessageParam;
  return true;
}

// Thinking blocks cannot be cached on their own, and an empty text block is refused in any case.
function canCarryMarker(block: ContentBlockParam): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  return block.type !== 'text' || block.text.trim() !== '';
}

function lastAssistant(messages: MessageParam[]): number {
  return lastIndexWhere(messages, (message) => message.role === 'assistant');
}

function lastUserBefore(messages: MessageParam[], index: number): number {
  if (index <= 0) return -1;
  return lastIndexWhere(messages.slice(0, index), (message) => message.role === 'user');
}

// Array.prototype.findLastIndex is ES2023; the project compiles against ES2022.
function lastIndexWhere<T>(items: T[], test: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) if (test(items[index])) return index;
  return -1;
}

function breakpointsIn(body: MessageCreateParamsNonStreaming): number {
  const marked = (block: unknown) => (block as { cache_control?: unknown }).cache_control != null;
  const systemBlocks = Array.isArray(body.system) ? body.system : [];
  const messageBlocks = body.messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
  return [...(body.tools ?? []), ...systemBlocks, ...messageBlocks].filter(marked).length;
}

/** The UTF-8 size of the request's prefix (tools, system, messages in Anthropic's order) through a given point. */
class PrefixBytes {
  private readonly throughEach: number[] = [];
  private readonly systemEnd: number;

  constructor(tools: unknown[] | undefined, system: unknown, messages: MessageParam[]) {
    this.systemEnd = bytes(tools ?? []) + bytes(system ?? '');
    let sum = this.systemEnd;
    for (const message of messages) this.throughEach.push((sum += bytes(message.content)));
  }

  throughSystem(): number {
    return this.systemEnd;
  }

  throughMessage(index: number): number {
    return this.throughEach[index] ?? 0;
  }
}

function bytes(value: unknown): number {
  return Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
}
