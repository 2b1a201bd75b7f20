import { z } from 'zod';
import { conversationStartText, prepareAnthropicRequest } from '../../providers/anthropic/prepare-request';
import { prepareOpenAIRequest } from '../../providers/openai/prepare-request';
import type { Message } from '../../core/messages';
import { defineTool, toolJsonSchema } from '../../tools/define-tool';
import { anthropicMessagesProblem } from '../support/wire-rules/anthropic-messages';
import { openaiChatProblem } from '../support/wire-rules/openai-chat';

const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a file',
  input: z.object({ path: z.string() }),
  handler: async () => '',
});
const readFile = { name: readFileTool.name, description: readFileTool.description, parameters: toolJsonSchema(readFileTool) };

// A conversation with a finished tool round, then the closing reflection's request.
const withToolRound: Message[] = [
  { role: 'user', content: 'read a.txt' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' }] },
  { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'alpha', isError: false },
  { role: 'user', content: 'summarise without tools' },
];

describe('prepareAnthropicRequest', () => {
  it("sends steering messages after tool results in the results' user message, after the results", () => {
    const steered: Message[] = [
      ...withToolRound.slice(0, 3),
      { role: 'user', content: 'not that file', steering: true },
      { role: 'user', content: 'and be quick', steering: true },
    ];
    const body = prepareAnthropicRequest({
      model: 'claude',
      messages: steered,
      tools: [readFile],
      toolChoice: 'auto',
      modelSettings: {},
    });
    expect(body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: 'alpha' },
        { type: 'text', text: 'not that file' },
        { type: 'text', text: 'and be quick' },
      ],
    });
    expect(anthropicMessagesProblem(body)).toBeUndefined();
  });

  it('defines the tools with tool_choice none for a call that may not use them, when the conversation holds tool blocks', () => {
    const body = prepareAnthropicRequest({
      model: 'claude',
      messages: withToolRound,
      tools: [readFile],
      toolChoice: 'none',
      modelSettings: {},
    });
    expect(body.tools?.map((tool) => (tool as { name: string }).name)).toEqual(['read_file']);
    expect(body.tool_choice).toEqual({ type: 'none' });
    expect(anthropicMessagesProblem(body)).toBeUndefined();
  });

  it('defines tools the conversation used but no longer offers by name, with tool_choice none', () => {
    const body = prepareAnthropicRequest({
      model: 'claude',
      messages: withToolRound,
      tools: [],
      toolChoice: 'auto',
      modelSettings: {},
    });
    expect(body.tools).toEqual([
      { name: 'read_file', description: 'read_file (no longer available)', input_schema: { type: 'object' } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'none' });
    expect(anthropicMessagesProblem(body)).toBeUndefined();
  });

  it('sends no tools for a text-only call whose conversation has no tool blocks', () => {
    const body = prepareAnthropicRequest({
      model: 'claude',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [readFile],
      toolChoice: 'none',
      modelSettings: {},
    });
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
  });

  it('starts with a user turn, leaves blank text out, and keeps roles alternating', () => {
    const body = prepareAnthropicRequest({
      model: 'claude',
      messages: [
        { role: 'assistant', content: 'earlier answer', toolCalls: [] },
        { role: 'user', content: 'go on' },
        { role: 'assistant', content: '   ', toolCalls: [] },
        { role: 'user', content: 'still there?' },
      ],
      tools: [],
      toolChoice: 'auto',
      modelSettings: {},
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: conversationStartText }] },
      { role: 'assistant', content: [{ type: 'text', text: 'earlier answer' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'go on' },
          { type: 'text', text: 'still there?' },
        ],
      },
    ]);
    expect(anthropicMessagesProblem(body)).toBeUndefined();
  });

  it('gives an empty tool output text, since an empty error result is refused', () => {
    const body = prepareAnthropicRequest({
      model: 'claude',
      messages: [
        ...withToolRound.slice(0, 2),
        { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: '', isError: true },
      ],
      tools: [readFile],
      toolChoice: 'auto',
      modelSettings: {},
    });
    expect(JSON.stringify(body.messages)).toContain('"content":"(no output)"');
    expect(anthropicMessagesProblem(body)).toBeUndefined();
  });
});

describe('prepareOpenAIRequest', () => {
  it('sends tool_choice none with the tools for a call that may not use them', () => {
    const body = prepareOpenAIRequest({
      model: 'gpt',
      messages: withToolRound,
      tools: [readFile],
      toolChoice: 'none',
      modelSettings: {},
    });
    expect(body.tool_choice).toBe('none');
    expect(body.tools).toHaveLength(1);
    expect(openaiChatProblem(body)).toBeUndefined();
  });

  it('never sends tool_choice without tools', () => {
    const body = prepareOpenAIRequest({
      model: 'gpt',
      messages: withToolRound,
      tools: [],
      toolChoice: 'none',
      modelSettings: {},
    });
    expect(body.tool_choice).toBeUndefined();
    expect(openaiChatProblem(body)).toBeUndefined();
  });

  it('leaves an empty reply out of the request', () => {
    const body = prepareOpenAIRequest({
      model: 'gpt',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', toolCalls: [] },
        { role: 'user', content: 'again' },
      ],
      tools: [],
      toolChoice: 'auto',
      modelSettings: {},
    });
    expect(body.messages.map((message) => message.role)).toEqual(['user', 'user']);
  });
});

describe('the strict fake refuses what the real APIs refuse', () => {
  const unpaired = [
    { role: 'user', content: 'hi' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
    },
    { role: 'user', content: 'next' },
  ];
  it.each<[string, unknown, string]>([
    [
      'an unanswered tool call',
      { messages: unpaired },
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'",
    ],
    [
      'a tool result without its call',
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'tool', tool_call_id: 'x', content: 'a' },
        ],
      },
      "messages with role 'tool' must be a response",
    ],
    [
      'tool_choice without tools',
      { messages: [{ role: 'user', content: 'hi' }], tool_choice: 'none' },
      "'tool_choice' is only allowed when 'tools' are specified",
    ],
    [
      'an assistant message with neither content nor tool calls',
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null },
        ],
      },
      "Invalid value for 'content'",
    ],
  ])('OpenAI: %s', (_case, body, message) => {
    expect(openaiChatProblem(body)).toContain(message);
  });

  const toolUse = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: {} }] };
  const toolResult = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a' }] };
  it.each<[string, unknown, string]>([
    [
      'tool blocks without tools',
      { max_tokens: 10, messages: [{ role: 'user', content: 'hi' }, toolUse, toolResult] },
      'must define tools',
    ],
    [
      'a tool_use without its tool_result',
      {
        max_tokens: 10,
        tools: [{ name: 'read_file' }],
        messages: [{ role: 'user', content: 'hi' }, toolUse, { role: 'user', content: 'next' }],
      },
      'ids were found without `tool_result` blocks immediately after: t1',
    ],
    [
      'text before the tool results that answer a tool_use',
      {
        max_tokens: 10,
        tools: [{ name: 'read_file' }],
        messages: [
          { role: 'user', content: 'hi' },
          toolUse,
          { role: 'user', content: [{ type: 'text', text: 'not that file' }, ...toolResult.content] },
        ],
      },
      'ids were found without `tool_result` blocks immediately after: t1',
    ],
    [
      'a tool_result without its tool_use',
      {
        max_tokens: 10,
        tools: [{ name: 'read_file' }],
        messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'ok' }, toolResult],
      },
      'unexpected `tool_use_id`',
    ],
    [
      'an empty text block',
      { max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
      'text content blocks must be non-empty',
    ],
    [
      'a conversation that starts with the assistant',
      { max_tokens: 10, messages: [{ role: 'assistant', content: 'hi' }] },
      'first message must use the "user" role',
    ],
    [
      'two user turns in a row',
      {
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      },
      'roles must alternate',
    ],
    ['no max_tokens', { messages: [{ role: 'user', content: 'a' }] }, 'max_tokens: Field required'],
  ])('Anthropic: %s', (_case, body, message) => {
    expect(anthropicMessagesProblem(body)).toContain(message);
  });
});
