import type { Message as AnthropicMessage, StopReason } from '@anthropic-ai/sdk/resources/messages';
import { toAnthropicPrompt } from '../../providers/anthropic/convert-messages';
import { fromAnthropicMessage } from '../../providers/anthropic/convert-response';
import { mapAnthropicStopReason } from '../../providers/anthropic/map-stop-reason';

function anthropicMessage(content: AnthropicMessage['content'], stopReason: StopReason | null = 'end_turn'): AnthropicMessage {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 30, output_tokens: 9 },
  } as AnthropicMessage;
}

describe('toAnthropicPrompt', () => {
  it('hoists system messages into one top-level system prompt', () => {
    const prompt = toAnthropicPrompt([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'use tools' },
    ]);
    expect(prompt).toEqual({
      system: 'be brief\n\nuse tools',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('leaves system undefined when there is no system message', () => {
    expect(toAnthropicPrompt([{ role: 'user', content: 'hi' }]).system).toBeUndefined();
  });

  it('puts assistant text and tool calls into one assistant message', () => {
    const { messages } = toAnthropicPrompt([
      { role: 'user', content: 'read both' },
      {
        role: 'assistant',
        content: 'reading',
        toolCalls: [
          { id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' },
          { id: 'c2', name: 'read_file', arguments: '{"path":"b.txt"}' },
        ],
      },
    ]);
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'reading' },
        { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'a.txt' } },
        { type: 'tool_use', id: 'c2', name: 'read_file', input: { path: 'b.txt' } },
      ],
    });
  });

  it('omits the text block of an assistant message with empty content', () => {
    const { messages } = toAnthropicPrompt([
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'list_directory', arguments: '{}' }] },
    ]);
    expect(messages).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'list_directory', input: {} }] },
    ]);
  });

  it('merges consecutive tool results into one user message, marking only errors', () => {
    const { messages } = toAnthropicPrompt([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'c1', name: 'read_file', arguments: '{}' },
          { id: 'c2', name: 'read_file', arguments: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'contents', isError: false },
      { role: 'tool', toolCallId: 'c2', toolName: 'read_file', content: 'file "x" does not exist', isError: true },
      { role: 'user', content: 'and now?' },
    ]);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: 'contents' },
        { type: 'tool_result', tool_use_id: 'c2', content: 'file "x" does not exist', is_error: true },
        { type: 'text', text: 'and now?' },
      ],
    });
  });

  it.each([
    ['malformed JSON', '{"path":'],
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"a.txt"'],
    ['JSON null', 'null'],
  ])('wraps tool-call arguments that are %s as invalid_arguments', (_label, text) => {
    const { messages } = toAnthropicPrompt([
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: text }] },
    ]);
    expect(messages[0].content).toEqual([{ type: 'tool_use', id: 'c1', name: 'read_file', input: { invalid_arguments: text } }]);
  });
});

describe('fromAnthropicMessage', () => {
  it('joins text blocks and turns tool_use blocks into tool calls with JSON arguments', () => {
    const response = fromAnthropicMessage(
      anthropicMessage(
        [
          { type: 'text', text: 'Let me ', citations: null },
          { type: 'text', text: 'look.', citations: null },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } },
        ] as AnthropicMessage['content'],
        'tool_use',
      ),
    );
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: '{"path":"a.txt"}' }],
      },
      finishReason: 'tool_calls',
      usage: { inputTokens: 30, outputTokens: 9 },
    });
  });

  it('ignores blocks it has no neutral form for', () => {
    const response = fromAnthropicMessage(
      anthropicMessage([
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
        { type: 'text', text: 'answer', citations: null },
      ] as AnthropicMessage['content']),
    );
    expect(response.message).toEqual({ role: 'assistant', content: 'answer', toolCalls: [] });
    expect(response.finishReason).toBe('stop');
  });
});

describe('mapAnthropicStopReason', () => {
  const cases: [StopReason | string | null, string][] = [
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['tool_use', 'tool_calls'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['refusal', 'refusal'],
    ['pause_turn', 'other'],
    ['brand_new_reason', 'other'],
    [null, 'other'],
  ];
  it.each(cases)('maps %p to %p', (reason, expected) => {
    expect(mapAnthropicStopReason(reason)).toBe(expected);
  });
});
