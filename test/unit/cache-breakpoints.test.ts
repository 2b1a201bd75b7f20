import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { maxCacheBreakpoints, minimumCacheableTokensOf, withCacheBreakpoints } from '../../providers/anthropic/cache-breakpoints';

// Where the engine puts Anthropic's cache breakpoints, on plain request bodies: the wire test
// (prompt-caching-wire.test.ts) shows what the fake API then reads and writes.

const long = 'x'.repeat(5000);
const marker = { type: 'ephemeral' };

function body(extra: Partial<MessageCreateParamsNonStreaming> = {}): MessageCreateParamsNonStreaming {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    system: long,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'reply' }] },
      { role: 'user', content: [{ type: 'text', text: 'second' }] },
    ],
    ...extra,
  };
}

const markedBlocks = (prepared: MessageCreateParamsNonStreaming) => JSON.stringify(prepared).split('"cache_control"').length - 1;

describe('withCacheBreakpoints', () => {
  it('never goes past 4 breakpoints, counting those the request already has', () => {
    const marked = Array.from({ length: 3 }, (_, index) => ({
      type: 'text' as const,
      text: `rule ${index}`,
      cache_control: marker,
    }));
    const prepared = withCacheBreakpoints(body({ system: [...marked, { type: 'text', text: long }] as never }), undefined);
    expect(markedBlocks(prepared)).toBe(maxCacheBreakpoints);
    // The one left went to the tools and system prompt, the point every call shares.
    expect((prepared.system as Array<{ cache_control?: unknown }>)[3].cache_control).toEqual(marker);
    const full = Array.from({ length: 4 }, (_, index) => ({
      type: 'text' as const,
      text: `rule ${index}`,
      cache_control: marker,
    }));
    expect(markedBlocks(withCacheBreakpoints(body({ system: full as never }), undefined))).toBe(4);
  });

  it('marks the last tool when there is no system prompt, and never a thinking block', () => {
    const tools = [{ name: 'read_file', description: long, input_schema: { type: 'object' as const } }];
    const prepared = withCacheBreakpoints(
      body({
        system: undefined,
        tools,
        messages: [
          { role: 'user', content: [{ type: 'text', text: long }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hm', signature: 's' },
              { type: 'text', text: 'ok' },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'next' }] },
        ],
      }),
      '1h',
    );
    expect(prepared.tools![0]).toMatchObject({ cache_control: { type: 'ephemeral', ttl: '1h' } });
    expect(JSON.stringify(prepared.messages[1])).not.toContain('cache_control');
    expect(prepared.system).toBeUndefined();
  });

  it('leaves the request as it was when caching is off, and refuses a 24-hour cache in words', () => {
    const original = body();
    expect(withCacheBreakpoints(original, 'off')).toBe(original);
    expect(() => withCacheBreakpoints(original, '24h')).toThrow(/"24h" is not offered by Anthropic/);
  });

  it('does not change what the blocks say, only marks them', () => {
    const original = body();
    const prepared = withCacheBreakpoints(original, undefined);
    const unmarked = JSON.parse(JSON.stringify(prepared).replace(/,"cache_control":\{"type":"ephemeral"\}/g, ''));
    expect(unmarked.messages).toEqual(original.messages);
    expect(unmarked.system).toEqual([{ type: 'text', text: long }]);
    expect(JSON.stringify(original)).not.toContain('cache_control');
  });

  it("knows each model family's minimum", () => {
    expect(minimumCacheableTokensOf('claude-haiku-4-5-20251001')).toBe(4096);
    expect(minimumCacheableTokensOf('claude-opus-4-5')).toBe(4096);
    expect(minimumCacheableTokensOf('claude-sonnet-4-6')).toBe(2048);
    expect(minimumCacheableTokensOf('claude-sonnet-4-5')).toBe(1024);
    expect(minimumCacheableTokensOf('claude-next-unknown')).toBe(1024);
  });
});
