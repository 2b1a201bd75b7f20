import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ModelSettings } from '../../core/agent-spec';
import { priced } from '../../core/cost';
import type { Message } from '../../core/messages';
import { loadPrices } from '../../pricing/load-prices';
import { anthropicProvider } from '../../providers/anthropic/provider';
import { anthropicSettingsProblem } from '../../providers/anthropic/settings-rules';
import { openaiProvider } from '../../providers/openai/provider';
import { openaiPromptCacheProblem } from '../../providers/openai/prompt-cache';
import { openaiResponsesProvider } from '../../providers/openai-responses/provider';
import type { ModelProvider } from '../../providers/provider-call';
import { anthropicReply, FakeModelServer, openaiReply, openaiResponsesReply } from '../support/fake-model-server';

// Prompt caching through the real SDK clients against the strict fake server, which models each provider's cache
// (test/support/wire-rules/prompt-cache.ts: a token per four characters) and refuses what the real APIs refuse.

let server: FakeModelServer;
beforeAll(async () => {
  server = await FakeModelServer.start();
});
afterAll(() => server?.close());
beforeEach(() => server.reset());

// 8,000 characters: 2,000 tokens as the fake counts them, above every model's minimum but Haiku 4.5's (4,096).
const longInstructions = `You are a careful agent. ${'Follow the house rules to the letter. '.repeat(210)}`;
const tool = {
  name: 'read_file',
  description: 'Reads a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

function call(provider: ModelProvider, model: string, messages: Message[], modelSettings: ModelSettings = {}, stream = false) {
  return provider.call({
    model,
    messages,
    tools: [tool],
    toolChoice: 'auto',
    modelSettings,
    env: server.providerEnv,
    signal: new AbortController().signal,
    timeoutMs: 10_000,
    sessionKey: 'agent-run-7f3a',
    ...(stream && { onTextDelta: () => undefined }),
  });
}

/** A conversation after `rounds` tool rounds, each with a tool result long enough to matter. */
function conversation(rounds: number): Message[] {
  const messages: Message[] = [
    { role: 'system', content: longInstructions },
    { role: 'user', content: 'Read the three files and summarise them.' },
  ];
  for (let round = 1; round <= rounds; round++) {
    messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `call_${round}`, name: 'read_file', arguments: `{"path":"f${round}.txt"}` }],
    });
    messages.push({
      role: 'tool',
      toolCallId: `call_${round}`,
      toolName: 'read_file',
      content: `line ${round}\n`.repeat(300),
      isError: false,
    });
  }
  return messages;
}

type Marked = { cache_control?: { type: string; ttl?: string } };
function anthropicMarkers(body: { system?: unknown; tools?: Marked[]; messages: Array<{ content: unknown }> }): string[] {
  const markers: string[] = [];
  (body.tools ?? []).forEach((block, index) => block.cache_control && markers.push(`tools.${index}`));
  if (Array.isArray(body.system))
    (body.system as Marked[]).forEach((block, index) => block.cache_control && markers.push(`system.${index}`));
  body.messages.forEach((message, index) => {
    if (Array.isArray(message.content))
      (message.content as Marked[]).forEach(
        (block, position) => block.cache_control && markers.push(`messages.${index}.content.${position}`),
      );
  });
  return markers;
}

describe('Anthropic prompt caching', () => {
  const model = 'claude-sonnet-4-5';

  it.each([false, true])(
    'marks the system prompt and the conversation, and the next call reads what the last one wrote (stream: %s)',
    async (stream) => {
      server.respondWith(() => anthropicReply({ text: 'ok' }));
      const first = await call(anthropicProvider, model, conversation(0), {}, stream);
      const second = await call(anthropicProvider, model, conversation(1), {}, stream);
      const third = await call(anthropicProvider, model, conversation(2), {}, stream);
      expect(server.refusals).toEqual([]);
      const [firstBody, secondBody, thirdBody] = server.requests.map((request) => request.body);
      expect(firstBody.system).toEqual([{ type: 'text', text: longInstructions, cache_control: { type: 'ephemeral' } }]);
      expect(anthropicMarkers(firstBody)).toEqual(['system.0', 'messages.0.content.0']);
      // The point the previous call wrote (its last message) and the newest one.
      expect(anthropicMarkers(secondBody)).toEqual(['system.0', 'messages.0.content.0', 'messages.2.content.0']);
      expect(anthropicMarkers(thirdBody)).toEqual(['system.0', 'messages.2.content.0', 'messages.4.content.0']);

      expect(first.usage.cacheReadTokens).toBeUndefined();
      expect(first.usage.cacheWriteTokens).toBeGreaterThan(2000);
      expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
      expect(third.usage.cacheReadTokens).toBe(second.usage.cacheReadTokens! + second.usage.cacheWriteTokens!);
      // inputTokens is the whole prompt: what was read and what was written (nothing comes after the last breakpoint).
      expect(third.usage.inputTokens).toBe(third.usage.cacheReadTokens! + third.usage.cacheWriteTokens!);
      const price = loadPrices({})[`anthropic:${model}`];
      const uncached = priced({ inputTokens: third.usage.inputTokens, outputTokens: 0 }, price).costUsd!;
      expect(priced({ ...third.usage, outputTokens: 0 }, price).costUsd).toBeLessThan(uncached * 0.5);
    },
  );

  it('writes one-hour entries when promptCache is 1h, reported and priced apart', async () => {
    server.respondWith(() => anthropicReply({ text: 'ok' }));
    const first = await call(anthropicProvider, model, conversation(0), { promptCache: '1h' });
    expect(server.refusals).toEqual([]);
    expect(server.requests[0].body.system[0].cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(first.usage.cacheWrite1hTokens).toBe(first.usage.cacheWriteTokens);
    // An hour later with 5-minute entries nothing would be left; with 1-hour entries, 59 minutes later all is read.
    server.promptCache.advance(59 * 60_000);
    const second = await call(anthropicProvider, model, conversation(1), { promptCache: '1h' });
    expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
    const price = loadPrices({})[`anthropic:${model}`];
    const written = first.usage.cacheWriteTokens!;
    expect(priced({ ...first.usage, outputTokens: 0 }, price).costUsd).toBeCloseTo(
      (written * price.cacheWrite1h! + (first.usage.inputTokens - written) * price.input) / 1e6,
      12,
    );
  });

  it('reads nothing once a five-minute entry has expired, and writes it again', async () => {
    server.respondWith(() => anthropicReply({ text: 'ok' }));
    const first = await call(anthropicProvider, model, conversation(0));
    server.promptCache.advance(5 * 60_000 + 1);
    const second = await call(anthropicProvider, model, conversation(1));
    expect(second.usage.cacheReadTokens).toBeUndefined();
    expect(second.usage.cacheWriteTokens).toBeGreaterThan(first.usage.cacheWriteTokens!);
  });

  it('marks nothing when promptCache is off, and nothing on a prompt surely below the minimum', async () => {
    server.respondWith(() => anthropicReply({ text: 'ok' }));
    const off = await call(anthropicProvider, model, conversation(1), { promptCache: 'off' });
    expect(JSON.stringify(server.requests[0].body)).not.toContain('cache_control');
    expect(off.usage).toEqual({ inputTokens: 200, outputTokens: 30 });
    await call(anthropicProvider, model, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(JSON.stringify(server.requests[1].body)).not.toContain('cache_control');
  });

  it("caches nothing for a prefix below the model's minimum, though the API accepts its breakpoints", async () => {
    server.respondWith(() => anthropicReply({ text: 'ok' }));
    // 2,000 tokens: above Sonnet 4.5's minimum (1,024), below Haiku 4.5's (4,096).
    const haiku = await call(anthropicProvider, 'claude-haiku-4-5', conversation(0));
    expect(server.refusals).toEqual([]);
    expect(anthropicMarkers(server.requests[0].body)).toEqual(['system.0', 'messages.0.content.0']);
    expect(haiku.usage.cacheWriteTokens).toBeUndefined();
    expect(haiku.usage.inputTokens).toBe(200);
  });

  it('still reads the tools and system prompt after a summary rewrote the conversation', async () => {
    server.respondWith(() => anthropicReply({ text: 'ok' }));
    await call(anthropicProvider, model, conversation(2));
    const summarised: Message[] = [
      { role: 'system', content: longInstructions },
      { role: 'user', content: 'Summary of the conversation so far: three files were read.' },
    ];
    const after = await call(anthropicProvider, model, summarised);
    expect(server.refusals).toEqual([]);
    // The tools and system prompt: at least the 2,000 tokens of the instructions.
    expect(after.usage.cacheReadTokens).toBeGreaterThan(2000);
    expect(after.usage.cacheReadTokens).toBeLessThan(2200);
  });

  it('refuses the 24h setting Anthropic does not offer, at start', () => {
    expect(anthropicSettingsProblem({ promptCache: '24h' })).toMatch(/"24h" is not offered by Anthropic/);
    expect(anthropicSettingsProblem({ promptCache: '1h' })).toBeUndefined();
  });

  it('counts hostile or broken cache counts as nothing', async () => {
    const step = anthropicReply({ text: 'ok', inputTokens: 50 }) as { json: { usage: Record<string, unknown> } };
    step.json.usage = {
      ...step.json.usage,
      cache_read_input_tokens: -1_000_000,
      cache_creation_input_tokens: 'many',
      cache_creation: { ephemeral_1h_input_tokens: Number.MAX_VALUE },
    };
    server.enqueue(step as never);
    const reply = await call(anthropicProvider, model, [{ role: 'user', content: 'hi' }], { promptCache: 'off' });
    expect(reply.usage).toEqual({ inputTokens: 50, outputTokens: 30 });
  });
});

describe("the fake refuses what Anthropic's API refuses about cache_control", () => {
  const anthropic = () => new Anthropic({ baseURL: server.providerEnv.ANTHROPIC_BASE_URL, apiKey: 'sk-ant-test', maxRetries: 0 });
  const marked = (text: string, ttl?: string) => ({
    type: 'text' as const,
    text,
    cache_control: { type: 'ephemeral', ...(ttl && { ttl }) } as never,
  });
  const create = (system: unknown[]) =>
    anthropic()
      .messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 10,
        system: system as never,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .then(
        () => undefined,
        (error: InstanceType<typeof Anthropic.APIError>) => ({ status: error.status, message: error.message }),
      );

  it('refuses a fifth breakpoint', async () => {
    server.respondWith(() => anthropicReply({ text: 'ok' }));
    expect(await create(['a', 'b', 'c', 'd'].map((text) => marked(text)))).toBeUndefined();
    expect(await create(['a', 'b', 'c', 'd', 'e'].map((text) => marked(text)))).toEqual({
      status: 400,
      message: expect.stringContaining('A maximum of 4 blocks with cache_control may be provided. Found 5.'),
    });
  });

  it('refuses a ttl other than 5m or 1h, another type, and a one-hour entry after a five-minute one', async () => {
    expect(await create([marked('a', '2h')])).toMatchObject({
      status: 400,
      message: expect.stringContaining("Input should be '5m' or '1h'"),
    });
    expect(await create([{ type: 'text', text: 'a', cache_control: { type: 'persistent' } }])).toMatchObject({
      message: expect.stringContaining("cache_control.type: Input should be 'ephemeral'"),
    });
    expect(await create([marked('a', '5m'), marked('b', '1h')])).toMatchObject({
      status: 400,
      message: expect.stringContaining("ttl='1h' must not come after a cache_control block with ttl='5m'"),
    });
    server.respondWith(() => anthropicReply({ text: 'ok' }));
    expect(await create([marked('a', '1h'), marked('b', '5m')])).toBeUndefined();
  });
});

describe('OpenAI prompt caching', () => {
  const cases: Array<[string, ModelProvider, (tokens: number) => ReturnType<typeof openaiReply>]> = [
    ['Chat Completions', openaiProvider, (inputTokens) => openaiReply({ content: 'ok', inputTokens })],
    ['Responses', openaiResponsesProvider, (inputTokens) => openaiResponsesReply({ content: 'ok', inputTokens })],
  ];

  it.each(cases)(
    '%s: two calls of a session are the same bytes up to the new messages, under one key, and the second reads the cache',
    async (_api, provider, reply) => {
      server.respondWith(() => reply(100));
      const first = await call(provider, 'gpt-4o-mini', conversation(1));
      const second = await call(provider, 'gpt-4o-mini', conversation(2));
      expect(server.refusals).toEqual([]);
      const [one, two] = server.requests;
      const conversationField = one.path.includes('/responses') ? '"input":[' : '"messages":[';
      // Everything before the conversation (model, key, tools, settings) and every message of the first call.
      const firstUpToItsLastMessage = one.rawBody.slice(0, one.rawBody.lastIndexOf(']'));
      expect(firstUpToItsLastMessage).toContain(conversationField);
      expect(two.rawBody.startsWith(firstUpToItsLastMessage)).toBe(true);
      const key = one.body.prompt_cache_key;
      expect(key).toMatch(/^durable-agent-[0-9a-f]{40}$/);
      expect(key.length).toBeLessThanOrEqual(64);
      expect(two.body.prompt_cache_key).toBe(key);
      expect(one.rawBody).not.toContain('agent-run-7f3a');
      expect(first.usage.cacheReadTokens).toBeUndefined();
      expect(second.usage.cacheReadTokens! % 128).toBe(0);
      expect(second.usage.cacheReadTokens).toBeGreaterThanOrEqual(1024);
      expect(second.usage.inputTokens).toBeGreaterThan(second.usage.cacheReadTokens!);
    },
  );

  it.each(cases)(
    '%s: sends no key when caching is off, and the fake then reports nothing cached',
    async (_api, provider, reply) => {
      server.respondWith(() => reply(100));
      await call(provider, 'gpt-4o-mini', conversation(1), { promptCache: 'off' });
      const second = await call(provider, 'gpt-4o-mini', conversation(2), { promptCache: 'off' });
      expect(server.requests[1].body.prompt_cache_key).toBeUndefined();
      expect(second.usage).toEqual({ inputTokens: 100, outputTokens: 20 });
    },
  );

  it.each(cases)('%s: asks for a day of retention with 24h; an hour is refused at start', async (_api, provider, reply) => {
    server.respondWith(() => reply(100));
    await call(provider, 'gpt-4o-mini', conversation(1), { promptCache: '24h' });
    expect(server.requests[0].body.prompt_cache_retention).toBe('24h');
    expect(openaiPromptCacheProblem({ promptCache: '1h' })).toMatch(/"1h" is not offered by OpenAI/);
    expect(provider.modelSettingsProblem?.({ promptCache: '1h' })).toMatch(/"1h"/);
    expect(provider.modelSettingsProblem?.({ promptCache: '24h' })).toBeUndefined();
  });

  it('reports nothing cached below 1024 shared tokens', async () => {
    server.respondWith(() => openaiReply({ content: 'ok' }));
    const short: Message[] = [{ role: 'user', content: 'hello' }];
    await call(openaiProvider, 'gpt-4o-mini', short);
    const again = await call(openaiProvider, 'gpt-4o-mini', short);
    expect(again.usage.cacheReadTokens).toBeUndefined();
  });
});

describe("the fake refuses what OpenAI's APIs refuse about prompt caching", () => {
  const openai = () => new OpenAI({ baseURL: server.providerEnv.OPENAI_BASE_URL, apiKey: 'sk-test', maxRetries: 0 });
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: InstanceType<typeof OpenAI.APIError>) => ({ status: error.status, message: error.message }),
    );
  const chat = (fields: Record<string, unknown>) =>
    refusal(
      openai().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...fields } as never),
    );
  const responses = (fields: Record<string, unknown>) =>
    refusal(openai().responses.create({ model: 'gpt-4o-mini', input: 'hi', ...fields } as never));

  it.each([
    ['Chat Completions', chat],
    ['Responses', responses],
  ])('%s: refuses a key that is not a string or longer than 64 characters, and an unknown retention', async (_api, send) => {
    expect(await send({ prompt_cache_key: 42 })).toEqual({
      status: 400,
      message: expect.stringContaining("Invalid type for 'prompt_cache_key': expected a string, but got an integer instead."),
    });
    expect(await send({ prompt_cache_key: 'k'.repeat(65) })).toMatchObject({
      message: expect.stringContaining('Expected a string with maximum length 64, but got a string with length 65 instead.'),
    });
    expect(await send({ prompt_cache_retention: '1h' })).toMatchObject({
      status: 400,
      message: expect.stringContaining("Supported values are: 'in_memory' and '24h'."),
    });
    expect(server.refusals).toHaveLength(3);
  });
});
