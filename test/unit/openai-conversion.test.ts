import type { ChatCompletion } from 'openai/resources/chat/completions';
import { toOpenAIMessages } from '../../providers/openai/convert-messages';
import { fromOpenAICompletion } from '../../providers/openai/convert-response';
import { mapOpenAIFinishReason } from '../../providers/openai/map-finish-reason';
import { prepareOpenAIRequest } from '../../providers/openai/prepare-request';
import { openaiChatProblem } from '../support/wire-rules/openai-chat';

function completion(
  message: Partial<ChatCompletion.Choice['message']>,
  finishReason: ChatCompletion.Choice['finish_reason'] = 'stop',
): ChatCompletion {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        finish_reason: finishReason,
        logprobs: null,
        message: { role: 'assistant', content: null, refusal: null, ...message },
      },
    ],
    usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
  };
}

describe('toOpenAIMessages', () => {
  it('maps each neutral message to one OpenAI message', () => {
    expect(
      toOpenAIMessages([
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'list files' },
        { role: 'assistant', content: 'looking', toolCalls: [{ id: 'c1', name: 'list_directory', arguments: '{"path":"."}' }] },
        { role: 'tool', toolCallId: 'c1', toolName: 'list_directory', content: 'a.txt', isError: false },
        { role: 'assistant', content: 'a.txt', toolCalls: [] },
      ]),
    ).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: 'looking',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'list_directory', arguments: '{"path":"."}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
      { role: 'assistant', content: 'a.txt' },
    ]);
  });

  it('sends empty assistant content as null and passes malformed arguments through unchanged', () => {
    expect(
      toOpenAIMessages([{ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":' }] }]),
    ).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":' } }],
      },
    ]);
  });
});

describe('fromOpenAICompletion', () => {
  it('converts text, usage and finish reason', () => {
    expect(fromOpenAICompletion(completion({ content: 'hello' }))).toEqual({
      message: { role: 'assistant', content: 'hello', toolCalls: [] },
      finishReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 7 },
    });
  });

  it('converts function tool calls and keeps their raw arguments', () => {
    const response = fromOpenAICompletion(
      completion(
        {
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
            { id: 'c2', type: 'function', function: { name: 'write_file', arguments: 'not json' } },
          ],
        },
        'tool_calls',
      ),
    );
    expect(response.message).toEqual({
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' },
        { id: 'c2', name: 'write_file', arguments: 'not json' },
      ],
    });
    expect(response.finishReason).toBe('tool_calls');
  });

  it('reports a refusal as the content with finish reason refusal', () => {
    const response = fromOpenAICompletion(completion({ content: null, refusal: 'I cannot help with that.' }, 'stop'));
    expect(response.message.content).toBe('I cannot help with that.');
    expect(response.finishReason).toBe('refusal');
  });

  it('counts zero tokens when usage is missing', () => {
    expect(fromOpenAICompletion({ ...completion({ content: 'hi' }), usage: undefined }).usage).toEqual({
      inputTokens: 0,
      outputTokens: 0,
    });
  });

  it('fails loudly on a completion without choices', () => {
    expect(() => fromOpenAICompletion({ ...completion({ content: 'hi' }), choices: [] })).toThrow(
      'OpenAI response has no choices',
    );
  });
});

describe('mapOpenAIFinishReason', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool_calls'],
    ['function_call', 'tool_calls'],
    ['content_filter', 'content_filter'],
    ['something_new', 'other'],
    [null, 'other'],
    [undefined, 'other'],
  ])('maps %p to %p', (reason, expected) => {
    expect(mapOpenAIFinishReason(reason)).toBe(expected);
  });
});

describe('reasoning_content from OpenAI-compatible servers', () => {
  const source = { provider: 'openai', model: 'deepseek-reasoner' };

  it('keeps reasoning_content (or reasoning) as thinking of the openai provider, and reasoning tokens in usage', () => {
    const withReasoning = completion({ content: 'four', reasoning_content: 'two plus two…' } as never);
    withReasoning.usage = { ...withReasoning.usage!, completion_tokens_details: { reasoning_tokens: 5 } };
    expect(fromOpenAICompletion(withReasoning, source)).toEqual({
      message: {
        role: 'assistant',
        content: 'four',
        toolCalls: [],
        thinking: [{ type: 'thinking', ...source, text: 'two plus two…' }],
      },
      finishReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 7, reasoningTokens: 5 },
    });
    expect(fromOpenAICompletion(completion({ content: 'four', reasoning: 'sum' } as never), source).message.thinking).toEqual([
      { type: 'thinking', ...source, text: 'sum' },
    ]);
  });

  it('never sends thinking back, to the official API or any other', () => {
    const message = fromOpenAICompletion(
      completion(
        {
          content: '',
          reasoning_content: 'look first',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
        } as never,
        'tool_calls',
      ),
      source,
    ).message;
    const body = prepareOpenAIRequest({
      model: 'deepseek-reasoner',
      messages: [
        { role: 'user', content: 'go' },
        message,
        { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'x', isError: false },
      ],
      tools: [],
      toolChoice: 'auto',
      modelSettings: {},
    });
    expect(JSON.stringify(body)).not.toContain('look first');
    expect(openaiChatProblem(body)).toBeUndefined();
    expect(
      openaiChatProblem({
        ...body,
        messages: [body.messages[0], { ...body.messages[1], reasoning_content: 'look first' }, body.messages[2]],
      }),
    ).toBe("Additional properties are not allowed ('reasoning_content' was unexpected) - 'messages.1'");
  });

  it('passes the reasoning effort through as reasoning_effort', () => {
    const body = prepareOpenAIRequest({
      model: 'o4-mini',
      messages: [{ role: 'user', content: 'go' }],
      tools: [],
      toolChoice: 'auto',
      modelSettings: { reasoningEffort: 'low' },
    });
    expect(body.reasoning_effort).toBe('low');
  });
});
