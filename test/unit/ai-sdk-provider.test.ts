import type { LanguageModelV3, LanguageModelV4 } from '@ai-sdk/provider';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createMistral } from '@ai-sdk/mistral';
import { ApplicationFailure } from '@temporalio/common';
import { createAgentRegistry, defineAgent } from '../../index';
import { classifyProviderError } from '../../activities/model/classify-error';
import type { Message } from '../../core/messages';
import { aiSdkProvider, type ModelProvider, type ProviderCall } from '../../providers';
import { toLanguageModelPrompt, toolCallMetadataId } from '../../providers/ai-sdk/convert-messages';
import type { AiSdkLanguageModel } from '../../providers/ai-sdk/language-model';
import { wireCallIds } from '../../providers/ai-sdk/wire-call-ids';
import { InterruptedStreamError, readLanguageModelStream } from '../../providers/ai-sdk/read-stream';
import { FakeModelServer } from '../support/fake-model-server';
import { geminiError, geminiReply, mistralError, mistralReply } from '../support/gemini-and-mistral-replies';

// The adapter's own types fit every model of both specification versions it speaks.
type FitsV4 = LanguageModelV4 extends AiSdkLanguageModel ? true : never;
type FitsV3 = LanguageModelV3 extends AiSdkLanguageModel ? true : never;
const fits: [FitsV4, FitsV3] = [true, true];

let fake: FakeModelServer;
let google: ModelProvider;
let mistral: ModelProvider;

beforeAll(async () => {
  fake = await FakeModelServer.start();
  google = aiSdkProvider('google', createGoogleGenerativeAI({ baseURL: `${fake.url}/v1beta`, apiKey: 'test-google-key' }));
  mistral = aiSdkProvider('mistral', createMistral({ baseURL: `${fake.url}/mistral/v1`, apiKey: 'test-mistral-key' }));
});
afterEach(() => {
  expect(fake.refusals).toEqual([]);
  fake.reset();
});
afterAll(() => fake.close());

const readTool = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

function callOf(model: string, messages: Message[], extra: Partial<ProviderCall> = {}): ProviderCall {
  return {
    model,
    messages,
    tools: [readTool],
    toolChoice: 'auto',
    modelSettings: {},
    env: {},
    signal: new AbortController().signal,
    timeoutMs: 30_000,
    ...extra,
  };
}

const question: Message[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'What is in a.txt and b.txt?' },
];

describe('an AI SDK model as a provider', () => {
  it('streams Gemini text as it is written and counts its tokens, thoughts and cache reads', async () => {
    fake.enqueue(geminiReply({ thinking: 'Plain question.', text: 'Both are empty.', inputTokens: 400, cachedTokens: 100 }));
    const pieces: string[] = [];
    const thoughts: string[] = [];
    const response = await google.call(
      callOf('gemini-2.5-flash', question, {
        onTextDelta: (text) => pieces.push(text),
        onThinkingDelta: (text) => thoughts.push(text),
      }),
    );
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe('Both are empty.');
    expect(thoughts.join('')).toBe('Plain question.');
    expect(response.message.content).toBe('Both are empty.');
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toEqual({ inputTokens: 400, outputTokens: 55, reasoningTokens: 30, cacheReadTokens: 100 });
    const [request] = fake.requests;
    expect(request.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(request.body.systemInstruction).toEqual({ parts: [{ text: 'You are terse.' }] });
  });

  it('keeps a Gemini 3 thought signature on its function call across the tool turn, under a renamed call id', async () => {
    fake.enqueue(
      geminiReply({
        thinking: 'Read both.',
        toolCalls: [
          { id: 'fc-1', name: 'read_file', arguments: { path: 'a.txt' } },
          { id: 'fc-2', name: 'read_file', arguments: { path: 'b.txt' } },
        ],
      }),
    );
    const first = await google.call(callOf('gemini-3-pro-preview', question));
    expect(first.finishReason).toBe('tool_calls');
    expect(first.message.toolCalls.map((call) => JSON.parse(call.arguments))).toEqual([{ path: 'a.txt' }, { path: 'b.txt' }]);
    const signedPart = first.message.thinking?.find((part) => part.type === 'thinking' && part.id === toolCallMetadataId);
    expect(signedPart).toMatchObject({ provider: 'google', model: 'gemini-3-pro-preview', text: '' });
    // The ids as the model activity may have made them unique (core/call-ids.ts): the signature follows its place.
    const reply = {
      ...first.message,
      toolCalls: first.message.toolCalls.map((call, index) => ({ ...call, id: `call_m2_${index}` })),
    };
    fake.enqueue(geminiReply({ text: 'a says hi; b is empty.' }));
    const second = await google.call(
      callOf('gemini-3-pro-preview', [
        ...question,
        reply,
        { role: 'tool', toolCallId: 'call_m2_0', toolName: 'read_file', content: 'hi', isError: false },
        { role: 'tool', toolCallId: 'call_m2_1', toolName: 'read_file', content: '', isError: false },
      ]),
    );
    expect(second.message.content).toBe('a says hi; b is empty.');
    const sent = fake.requests[1].body.contents;
    // The fake refuses a signature it did not issue; the package would send its "skip" sentinel for a lost one.
    const signedCall = sent[1].parts.find((part: { functionCall?: unknown }) => part.functionCall);
    expect(signedCall.thoughtSignature).toEqual(expect.any(String));
    expect(signedCall.thoughtSignature).not.toBe('skip_thought_signature_validator');
    expect(sent[1].parts.filter((part: { thought?: boolean }) => part.thought)).toEqual([
      expect.objectContaining({ text: 'Read both.', thought: true }),
    ]);
    expect(sent[2].parts.map((part: { functionResponse: { id: string } }) => part.functionResponse.id)).toEqual([
      'call_m2_0',
      'call_m2_1',
    ]);
  });

  it('sends no thinking of another provider or model, and opens a conversation begun by the assistant with a user turn', async () => {
    fake.enqueue(geminiReply({ text: 'ok' }));
    await google.call(
      callOf('gemini-2.5-flash', [
        {
          role: 'assistant',
          content: 'Earlier answer.',
          toolCalls: [],
          thinking: [{ type: 'thinking', provider: 'anthropic', model: 'claude-sonnet-4-5', text: 'secret', signature: 'sig' }],
        },
        { role: 'user', content: 'Go on.' },
      ]),
    );
    const contents = fake.requests[0].body.contents;
    expect(contents.map((content: { role: string }) => content.role)).toEqual(['user', 'model', 'user']);
    expect(JSON.stringify(contents)).not.toContain('secret');
  });

  it("sends Mistral the ids it accepts, the same for a call and its result, and reads Mistral's own back", async () => {
    fake.enqueue(mistralReply({ toolCalls: [{ id: 'AbC123xyz', name: 'read_file', arguments: { path: 'a.txt' } }] }));
    const conversation: Message[] = [
      ...question,
      { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_01XyZ', name: 'read_file', arguments: '{"path":"b.txt"}' }] },
      { role: 'tool', toolCallId: 'toolu_01XyZ', toolName: 'read_file', content: 'empty', isError: false },
    ];
    const response = await mistral.call(callOf('mistral-large-latest', conversation));
    expect(response.message.toolCalls).toEqual([{ id: 'AbC123xyz', name: 'read_file', arguments: '{"path":"a.txt"}' }]);
    const sent = fake.requests[0].body.messages;
    expect(sent[2].tool_calls[0].id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(sent[3].tool_call_id).toBe(sent[2].tool_calls[0].id);
    expect(wireCallIds('mistral.chat')('AbC123xyz')).toBe('AbC123xyz');
    expect(wireCallIds('google.generative-ai')('toolu_01XyZ')).toBe('toolu_01XyZ');
  });

  it('asks for structured output in the provider’s own form', async () => {
    fake.enqueue(mistralReply({ text: '{"answer":"no"}' }));
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const response = await mistral.call(callOf('mistral-large-latest', question, { tools: [], output: { schema } }));
    expect(response.message.content).toBe('{"answer":"no"}');
    expect(fake.requests[0].body.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema } });
  });
});

describe("an AI SDK model's failures", () => {
  async function failure(provider: ModelProvider, model: string): Promise<ApplicationFailure> {
    // Thrown as the package threw it, and classified as the model activity classifies every provider's errors.
    const error = await provider.call(callOf(model, question)).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    return classifyProviderError(error, provider.name, { env: { GOOGLE_GENERATIVE_AI_API_KEY: 'test-google-key-secret' } });
  }

  it('makes a 429 retryable after the Retry-After the API asked for', async () => {
    fake.enqueue(geminiError(429, 'Resource has been exhausted (e.g. check quota).', { 'retry-after': '7' }));
    const classified = await failure(google, 'gemini-2.5-flash');
    expect(classified.nonRetryable).toBe(false);
    expect(classified.type).toBe('ProviderUnavailable');
    expect(classified.nextRetryDelay).toBe(7000);
    expect(fake.requests).toHaveLength(1);
  });

  it("makes a 400 non-retryable with the provider's own words", async () => {
    fake.enqueue(mistralError(400, 'Prompt contains 40000 tokens, too large for model with 32768 maximum context length'));
    const classified = await failure(mistral, 'mistral-small-latest');
    expect(classified).toMatchObject({ nonRetryable: true, type: 'ProviderRejectedRequest' });
    expect(classified.message).toBe(
      'mistral rejected the request (HTTP 400): Prompt contains 40000 tokens, too large for model with 32768 maximum context length',
    );
  });

  it('retries a 503 and a dropped connection, sending each request once (no retries of its own)', async () => {
    fake.enqueue(geminiError(503, 'The model is overloaded.'), { reset: true });
    expect(await failure(google, 'gemini-2.5-flash')).toMatchObject({ nonRetryable: false, type: 'ProviderUnavailable' });
    expect(await failure(google, 'gemini-2.5-flash')).toMatchObject({ nonRetryable: false, type: 'ProviderUnavailable' });
    expect(fake.requests).toHaveLength(2);
  });

  it('retries a stream whose connection dropped mid-answer, after streaming what it said', async () => {
    fake.enqueue({ ...geminiReply({ text: 'one two three four' }), stream: { stopAfter: 2, cut: true } });
    const pieces: string[] = [];
    const error = await google
      .call(callOf('gemini-2.5-flash', question, { onTextDelta: (text) => pieces.push(text) }))
      .catch((thrown: unknown) => thrown);
    expect(pieces.join('')).toBe('one two ');
    // The package calls it an HTTP 200 it will not retry ("Failed to process successful response"): a 200 is no rejection.
    expect(classifyProviderError(error, 'google')).toMatchObject({ nonRetryable: false, type: 'ProviderUnavailable' });
  });

  it('gives up at the call’s deadline on a stream that stops mid-answer, to be retried', async () => {
    fake.enqueue({ ...geminiReply({ text: 'one two' }), stream: { stopAfter: 1 } });
    const error = await google.call(callOf('gemini-2.5-flash', question, { timeoutMs: 300 })).catch((thrown: unknown) => thrown);
    expect(classifyProviderError(error, 'google').nonRetryable).toBe(false);
  });

  it('makes a missing API key a configuration error, never retried', async () => {
    const keyless = aiSdkProvider('google', createGoogleGenerativeAI({ baseURL: `${fake.url}/v1beta` }));
    const saved = process.env.GOOGLE_GENERATIVE_AI_API_KEY;
    delete process.env.GOOGLE_GENERATIVE_AI_API_KEY;
    try {
      const classified = await failure(keyless, 'gemini-2.5-flash');
      expect(classified).toMatchObject({ nonRetryable: true, type: 'AgentConfigurationError' });
      expect(classified.message).toContain('GOOGLE_GENERATIVE_AI_API_KEY');
    } finally {
      if (saved !== undefined) process.env.GOOGLE_GENERATIVE_AI_API_KEY = saved;
    }
    expect(fake.requests).toHaveLength(0);
  });
});

describe('the Gemini and Mistral fakes refuse what the real APIs refuse', () => {
  async function refusal(path: string, body: unknown): Promise<{ status: number; message: string }> {
    const response = await fetch(`${fake.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
    const json = (await response.json()) as { error?: { message: string }; message?: string };
    fake.reset();
    return { status: response.status, message: json.error?.message ?? json.message ?? '' };
  }
  const gemini = '/v1beta/models/gemini-2.5-flash:generateContent';
  const user = { role: 'user', parts: [{ text: 'hi' }] };
  const call = { role: 'model', parts: [{ functionCall: { name: 'read_file', args: {} } }] };
  const answer = { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: {} } }] };

  it.each([
    ['an unknown field', { contents: [user], temperature: 1 }, 'Unknown name "temperature"'],
    ['a conversation opened by the model', { contents: [call, answer] }, 'start with a user turn'],
    ['a function call left unanswered', { contents: [user, call, user] }, 'number of function response parts'],
    ['a function response with no call', { contents: [user, answer] }, 'comes immediately after a function call turn'],
    ['empty parts', { contents: [{ role: 'user', parts: [] }] }, 'must not be empty'],
  ])('Gemini: %s', async (_case, body, words) => {
    expect(await refusal(gemini, body)).toEqual({ status: 400, message: expect.stringContaining(words) });
  });

  const mistral = '/mistral/v1/chat/completions';
  const asked = {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 't', arguments: '{}' } }],
  };
  it.each([
    ['an unknown field', { model: 'm', messages: [{ role: 'user', content: 'hi' }], seed: 1 }, 422, 'body.seed'],
    [
      'a tool-call id of another API',
      { model: 'm', messages: [{ role: 'user', content: 'hi' }, asked] },
      400,
      'Tool call id was toolu_01',
    ],
    [
      'a call left unanswered',
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'hi' },
          { ...asked, tool_calls: [{ ...asked.tool_calls[0], id: 'AbC123xyz' }] },
          { role: 'user', content: 'hm' },
        ],
      },
      400,
      'Not the same number',
    ],
    [
      'a conversation ending with the assistant',
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'so' },
        ],
      },
      400,
      'Expected last role User or Tool',
    ],
  ])('Mistral: %s', async (_case, body, status, words) => {
    expect(await refusal(mistral, body)).toEqual({ status, message: expect.stringContaining(words) });
  });
});

describe('reading the stream', () => {
  const streamOf = (parts: unknown[]) =>
    new ReadableStream({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    });
  const source = { provider: 'google', model: 'gemini-2.5-flash' };
  const usage = { inputTokens: { total: 10 }, outputTokens: { total: 2 } };

  it('fails, to be retried, a stream that ends without its finish or whose finish says it was interrupted', async () => {
    const text = { type: 'text-delta', id: '0', delta: 'half an ans' };
    await expect(readLanguageModelStream(streamOf([text]), { source })).rejects.toThrow(InterruptedStreamError);
    const interrupted = { type: 'finish', usage, finishReason: { unified: 'interrupted', raw: undefined } };
    const spent: unknown[] = [];
    await expect(
      readLanguageModelStream(streamOf([text, interrupted]), { source, onUsage: (counted) => spent.push(counted) }),
    ).rejects.toThrow('the model\'s stream ended with finish reason "interrupted"');
    // What the cut answer cost is counted all the same.
    expect(spent).toEqual([{ inputTokens: 10, outputTokens: 2 }]);
  });

  it('throws the error part the package reports, for the activity to classify', async () => {
    const failure = Object.assign(new Error('overloaded'), { statusCode: 503, isRetryable: true });
    await expect(readLanguageModelStream(streamOf([{ type: 'error', error: failure }]), { source })).rejects.toBe(failure);
  });

  it('leaves out the tool calls the provider ran itself, and reads hostile counts as none', async () => {
    const response = await readLanguageModelStream(
      streamOf([
        { type: 'tool-call', toolCallId: 's1', toolName: 'google_search', input: '{}', providerExecuted: true },
        { type: 'text-delta', id: '0', delta: 'found it' },
        {
          type: 'finish',
          usage: {
            inputTokens: { total: -5, cacheRead: Number.NaN },
            outputTokens: { total: '9', reasoning: Number.POSITIVE_INFINITY },
          },
          finishReason: { unified: 'stop', raw: 'STOP' },
        },
      ]),
      { source },
    );
    expect(response).toEqual({
      message: { role: 'assistant', content: 'found it', toolCalls: [] },
      finishReason: 'stop',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });
});

describe('registering an AI SDK model', () => {
  const model = createGoogleGenerativeAI({ apiKey: 'unused' })('gemini-2.5-flash');

  it('refuses a model given as a provider, saying how to register it', () => {
    expect(() => createAgentRegistry({ providers: [model as unknown as ModelProvider] })).toThrow(
      "an AI SDK language model (google.generative-ai gemini-2.5-flash) is not a provider by itself: register aiSdkProvider('google', model)",
    );
  });

  it("refuses a model given as an agent's model, saying what to name instead", () => {
    expect(() =>
      defineAgent({ name: 'g', description: 'd', instructions: 'i', model: model as unknown as string, tools: [] }),
    ).toThrow("register it (providers: [aiSdkProvider('google', google)]) and name it, as in google:gemini-2.5-flash");
  });

  it('refuses what is neither a model nor a package provider, and a model of the v2 specification', () => {
    expect(() => aiSdkProvider('google', 'gemini' as never)).toThrow(
      "aiSdkProvider('google', …) takes an AI SDK language model (google('gemini-2.5-flash')) or a package's provider",
    );
    const v2 = { ...model, specificationVersion: 'v2', doStream: model.doStream } as never;
    expect(() => aiSdkProvider('old', v2)).toThrow('specification v2; durable-agent speaks v3 and v4');
  });

  it('answers only its own model when registered with one, and names it in the error', async () => {
    const flash = aiSdkProvider('flash', model);
    await expect(flash.call(callOf('gemini-2.5-pro', question))).rejects.toThrow(
      'provider "flash" was registered with the one model gemini-2.5-flash: name it flash:gemini-2.5-flash',
    );
  });

  it('refuses at start the settings it cannot pass on, and has no batch mode', () => {
    const registry = createAgentRegistry({ providers: [google] });
    expect(registry.modelSettingsProblem('google:gemini-2.5-flash', { thinkingBudget: 2048 })).toContain(
      'thinkingBudget is for Anthropic models',
    );
    expect(registry.modelSettingsProblem('google:gemini-2.5-flash', { promptCache: '1h' })).toContain('promptCache');
    expect(
      registry.modelSettingsProblem('google:gemini-2.5-flash', { reasoningEffort: 'low', temperature: 0.2 }),
    ).toBeUndefined();
    expect(google.batch).toBeUndefined();
  });
});

describe('the conversation as an AI SDK prompt', () => {
  it('puts every system message first, and tool results of one turn in one tool message', () => {
    const prompt = toLanguageModelPrompt(
      [
        { role: 'system', content: 'one' },
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'a', name: 't', arguments: 'not json' },
            { id: 'b', name: 't', arguments: '{}' },
          ],
        },
        { role: 'tool', toolCallId: 'a', toolName: 't', content: 'bad arguments', isError: true },
        { role: 'tool', toolCallId: 'b', toolName: 't', content: 'ok', isError: false },
        { role: 'system', content: 'two' },
        { role: 'user', content: '   ' },
      ],
      { keepThinking: () => true, wireCallId: (id) => id },
    );
    expect(prompt).toEqual([
      { role: 'system', content: 'one\n\ntwo' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'a', toolName: 't', input: { invalid_arguments: 'not json' } },
          { type: 'tool-call', toolCallId: 'b', toolName: 't', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'error-text', value: 'bad arguments' } },
          { type: 'tool-result', toolCallId: 'b', toolName: 't', output: { type: 'text', value: 'ok' } },
        ],
      },
    ]);
    expect(fits).toEqual([true, true]);
  });
});
