import type { Message as AnthropicMessage } from '@anthropic-ai/sdk/resources/messages';
import type { Message } from '../../core/messages';
import { fromAnthropicMessage } from '../../providers/anthropic/convert-response';
import { anthropicBetaHeaders, prepareAnthropicRequest } from '../../providers/anthropic/prepare-request';
import { anthropicBlocksReply } from '../support/fake-model-server';
import { anthropicMessagesProblem } from '../support/wire-rules/anthropic-messages';

const source = { provider: 'anthropic', model: 'claude-sonnet-4-6' };
const readFile = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
};

/** A reply as the fake server gives it: thinking sealed, so the wire rules can tell whether it came back unchanged. */
function served(blocks: Parameters<typeof anthropicBlocksReply>[0]): AnthropicMessage {
  return (anthropicBlocksReply(blocks) as { json: AnthropicMessage }).json;
}

// Interleaved thinking: the model thinks, calls a tool, thinks again and calls another, in one reply.
const interleaved = served([
  { thinking: 'The user wants a.txt; read it first.' },
  { redactedThinking: true },
  { text: 'Reading.' },
  { toolCall: { id: 'toolu_1', name: 'read_file', arguments: { path: 'a.txt' } } },
  { thinking: 'Then b.txt, to compare.' },
  { toolCall: { id: 'toolu_2', name: 'read_file', arguments: { path: 'b.txt' } } },
]);

function toolLoop(reply: Message): Message[] {
  return [
    { role: 'user', content: 'compare a.txt and b.txt' },
    reply,
    { role: 'tool', toolCallId: 'toolu_1', toolName: 'read_file', content: 'alpha', isError: false },
    { role: 'tool', toolCallId: 'toolu_2', toolName: 'read_file', content: 'beta', isError: false },
  ];
}

describe('Anthropic thinking, both ways', () => {
  it('keeps thinking and redacted thinking with their signature and data byte for byte, marked with provider and model', () => {
    const { message, usage } = fromAnthropicMessage(interleaved, { source });
    const [thinking, redacted, , , later] = interleaved.content as Array<{
      thinking?: string;
      signature?: string;
      data?: string;
    }>;
    expect(message.thinking).toEqual([
      { type: 'thinking', ...source, text: thinking.thinking, signature: thinking.signature },
      { type: 'redacted_thinking', ...source, data: redacted.data },
      { type: 'thinking', ...source, text: later.thinking, signature: later.signature, at: { text: 8, toolCalls: 1 } },
    ]);
    expect(message.content).toBe('Reading.');
    expect(message.toolCalls.map((call) => call.id)).toEqual(['toolu_1', 'toolu_2']);
    expect(usage).toEqual({ inputTokens: 200, outputTokens: 105, reasoningTokens: 75 });
  });

  it('sends the reply back block for block, in its original order, on the next call of the tool loop', () => {
    const { message } = fromAnthropicMessage(interleaved, { source });
    const body = prepareAnthropicRequest({
      model: source.model,
      messages: toolLoop(message),
      tools: [readFile],
      toolChoice: 'auto',
      modelSettings: { thinkingBudget: 2048 },
    });
    expect(body.messages[1]).toEqual({ role: 'assistant', content: interleaved.content });
    expect(anthropicMessagesProblem(body, [anthropicBetaHeaders(body)['anthropic-beta']])).toBeUndefined();
  });

  it('enables thinking with max_tokens above the budget, and the interleaved-thinking beta when tools are defined', () => {
    const request = {
      model: source.model,
      messages: [{ role: 'user' as const, content: 'hi' }],
      tools: [readFile],
      toolChoice: 'auto' as const,
      modelSettings: {},
    };
    const roomy = prepareAnthropicRequest({ ...request, modelSettings: { thinkingBudget: 2048, maxOutputTokens: 8000 } });
    expect(roomy).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 8000 });
    const tight = prepareAnthropicRequest({ ...request, modelSettings: { thinkingBudget: 2048, maxOutputTokens: 512 } });
    expect(tight.max_tokens).toBe(2048 + 512);
    expect(prepareAnthropicRequest({ ...request, modelSettings: { thinkingBudget: 2048 } }).max_tokens).toBe(2048 + 4096);
    expect(anthropicBetaHeaders(tight)).toEqual({ 'anthropic-beta': 'interleaved-thinking-2025-05-14' });
    expect(
      anthropicBetaHeaders(prepareAnthropicRequest({ ...request, tools: [], modelSettings: { thinkingBudget: 2048 } })),
    ).toEqual({});
    expect(anthropicMessagesProblem(tight)).toBeUndefined();
    expect(prepareAnthropicRequest(request).thinking).toBeUndefined();
  });

  it('sends no thinking from another provider or another model, and finishes a loop that began without thinking without it', () => {
    const { message } = fromAnthropicMessage(interleaved, { source: { provider: 'anthropic', model: 'claude-haiku-4-5' } });
    const fromOpenAI: Message = {
      ...message,
      thinking: [
        {
          type: 'thinking',
          provider: 'openai-responses',
          model: 'claude-sonnet-4-6',
          text: 'elsewhere',
          signature: 'gAAAA-opaque',
          id: 'rs_1',
        },
      ],
    };
    for (const reply of [message, fromOpenAI]) {
      const body = prepareAnthropicRequest({
        model: source.model,
        messages: toolLoop(reply),
        tools: [readFile],
        toolChoice: 'auto',
        modelSettings: { thinkingBudget: 2048 },
      });
      expect(JSON.stringify(body.messages)).not.toMatch(/thinking/);
      // Anthropic refuses thinking in a loop whose first assistant message has none, so this request thinks no more.
      expect(body.thinking).toBeUndefined();
      expect(anthropicMessagesProblem(body)).toBeUndefined();
    }
    // A new user message starts a new loop, which thinks again.
    const next = prepareAnthropicRequest({
      model: source.model,
      messages: [
        ...toolLoop(message),
        { role: 'assistant', content: 'done', toolCalls: [] },
        { role: 'user', content: 'and c.txt?' },
      ],
      tools: [readFile],
      toolChoice: 'auto',
      modelSettings: { thinkingBudget: 2048 },
    });
    expect(next.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(anthropicMessagesProblem(next, ['interleaved-thinking-2025-05-14'])).toBeUndefined();
  });

  it('leaves out a reply of thinking alone (an empty answer), as it leaves out an empty one', () => {
    const { message } = fromAnthropicMessage(served([{ thinking: 'Nothing to add.' }]), { source });
    const body = prepareAnthropicRequest({
      model: source.model,
      messages: [{ role: 'user', content: 'hi' }, message, { role: 'user', content: 'Your last reply was empty.' }],
      tools: [],
      toolChoice: 'auto',
      modelSettings: { thinkingBudget: 2048 },
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: 'Your last reply was empty.' },
        ],
      },
    ]);
    expect(anthropicMessagesProblem(body)).toBeUndefined();
  });

  it('offers the final-output tool without forcing it while thinking, as Anthropic refuses a forced tool then', () => {
    const body = prepareAnthropicRequest({
      model: source.model,
      messages: [{ role: 'user', content: 'extract' }],
      tools: [],
      toolChoice: 'auto',
      modelSettings: { thinkingBudget: 2048 },
      output: { schema: { type: 'object' } },
    });
    expect(body.tools?.map((tool) => (tool as { name: string }).name)).toEqual(['final_output']);
    expect(body.tool_choice).toBeUndefined();
    expect(anthropicMessagesProblem(body)).toBeUndefined();
    expect(
      prepareAnthropicRequest({
        model: 'claude',
        messages: [{ role: 'user', content: 'x' }],
        tools: [],
        toolChoice: 'auto',
        modelSettings: {},
        output: { schema: {} },
      }).tool_choice,
    ).toEqual({ type: 'any' });
  });
});

describe('the fake server refuses what Anthropic refuses while thinking', () => {
  const { message } = fromAnthropicMessage(interleaved, { source });
  const good = prepareAnthropicRequest({
    model: source.model,
    messages: toolLoop(message),
    tools: [readFile],
    toolChoice: 'auto',
    modelSettings: { thinkingBudget: 2048 },
  });
  const blocks = good.messages[1].content as unknown as Array<Record<string, unknown>>;
  const withBlocks = (content: unknown[]) => ({
    ...good,
    messages: [good.messages[0], { role: 'assistant', content }, good.messages[2]],
  });

  it.each([
    [
      'a thinking block whose text changed',
      () => withBlocks([{ ...blocks[0], thinking: 'edited' }, ...blocks.slice(1)]),
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    ],
    [
      'a signature one byte off',
      () => withBlocks([{ ...blocks[0], signature: `${String(blocks[0].signature).slice(0, -2)}A=` }, ...blocks.slice(1)]),
      'Invalid `signature`',
    ],
    [
      'thinking blocks out of their order',
      () => withBlocks([blocks[1], blocks[0], ...blocks.slice(2)]),
      'Invalid `data` in `redacted_thinking` block',
    ],
    [
      'a thinking block left out of the sequence',
      () => withBlocks([blocks[0], ...blocks.slice(2)]),
      'messages.1.content.3: Invalid `signature`',
    ],
    [
      'the loop without its thinking',
      () => withBlocks(blocks.filter((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking')),
      'Expected `thinking` or `redacted_thinking`, but found `text`',
    ],
    [
      'max_tokens not above the budget',
      () => ({ ...good, max_tokens: 2048 }),
      '`max_tokens` must be greater than `thinking.budget_tokens`',
    ],
    [
      'a budget under 1024',
      () => ({ ...good, thinking: { type: 'enabled', budget_tokens: 1000 } }),
      'greater than or equal to 1024',
    ],
    [
      'a temperature other than 1',
      () => ({ ...good, temperature: 0.2 }),
      '`temperature` may only be set to 1 when thinking is enabled',
    ],
    [
      'a forced tool',
      () => ({ ...good, tool_choice: { type: 'any' } }),
      'Thinking may not be enabled when tool_choice forces tool use.',
    ],
  ])('%s', (_label, body, refusal) => {
    expect(anthropicMessagesProblem(good)).toBeUndefined();
    expect(anthropicMessagesProblem(body())).toContain(refusal);
  });
});
