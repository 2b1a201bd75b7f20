import type { Response } from 'openai/resources/responses/responses';
import type { Message } from '../../core/messages';
import { fromResponsesResponse } from '../../providers/openai-responses/convert-response';
import { mapResponsesFinishReason } from '../../providers/openai-responses/map-finish-reason';
import { prepareResponsesRequest } from '../../providers/openai-responses/prepare-request';
import { openaiResponsesItemsReply, openaiResponsesReply } from '../support/fake-model-server';
import { openaiResponsesProblem } from '../support/wire-rules/openai-responses';

const source = { provider: 'openai-responses', model: 'o4-mini' };
const readFile = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
};

/** A reply as the fake server gives it: encrypted reasoning sealed, so the wire rules can tell whether it came back unchanged. */
function served(step: ReturnType<typeof openaiResponsesReply>): Response {
  return (step as { json: Response }).json;
}

// A reasoning model thinks, says something, calls a tool, thinks again and calls another.
const reply = served(
  openaiResponsesItemsReply([
    { reasoning: 'Read a.txt first.' },
    { text: 'Reading.' },
    { toolCall: { id: 'call_1', name: 'read_file', arguments: { path: 'a.txt' } } },
    { reasoning: '' },
    { toolCall: { id: 'call_2', name: 'read_file', arguments: { path: 'b.txt' } } },
  ]),
);
const [firstReasoning, , , secondReasoning] = reply.output as Array<{ id: string; encrypted_content: string }>;

function toolLoop(message: Message): Message[] {
  return [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'compare a.txt and b.txt' },
    message,
    { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'alpha', isError: false },
    { role: 'tool', toolCallId: 'call_2', toolName: 'read_file', content: 'beta', isError: false },
  ];
}

describe('OpenAI Responses conversion, both ways', () => {
  it('keeps reasoning items as thinking, encrypted content and id byte for byte, in their place among text and function calls', () => {
    const { message, finishReason, usage } = fromResponsesResponse(reply, source);
    expect(message).toEqual({
      role: 'assistant',
      content: 'Reading.',
      toolCalls: [
        { id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
        { id: 'call_2', name: 'read_file', arguments: '{"path":"b.txt"}' },
      ],
      thinking: [
        {
          type: 'thinking',
          ...source,
          text: 'Read a.txt first.',
          id: firstReasoning.id,
          signature: firstReasoning.encrypted_content,
        },
        {
          type: 'thinking',
          ...source,
          text: '',
          id: secondReasoning.id,
          signature: secondReasoning.encrypted_content,
          at: { text: 8, toolCalls: 1 },
        },
      ],
    });
    expect(finishReason).toBe('tool_calls');
    expect(usage).toEqual({ inputTokens: 100, outputTokens: 100, reasoningTokens: 80 });
  });

  it('sends the reply back item for item, in order, with store false and encrypted reasoning included', () => {
    const body = prepareResponsesRequest({
      model: 'o4-mini',
      messages: toolLoop(fromResponsesResponse(reply, source).message),
      tools: [readFile],
      toolChoice: 'auto',
      modelSettings: { reasoningEffort: 'high' },
    });
    expect(body).toMatchObject({
      model: 'o4-mini',
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'high' },
    });
    expect(body.input).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'compare a.txt and b.txt' },
      {
        type: 'reasoning',
        id: firstReasoning.id,
        summary: [{ type: 'summary_text', text: 'Read a.txt first.' }],
        encrypted_content: firstReasoning.encrypted_content,
      },
      { role: 'assistant', content: 'Reading.' },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { type: 'reasoning', id: secondReasoning.id, summary: [], encrypted_content: secondReasoning.encrypted_content },
      { type: 'function_call', call_id: 'call_2', name: 'read_file', arguments: '{"path":"b.txt"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'alpha' },
      { type: 'function_call_output', call_id: 'call_2', output: 'beta' },
    ]);
    expect(body.tools).toEqual([
      { type: 'function', name: 'read_file', description: 'Read a file', parameters: readFile.parameters, strict: false },
    ]);
    expect(openaiResponsesProblem(body)).toBeUndefined();
  });

  it('sends no reasoning of another provider or model, and none that has nothing after it', () => {
    const { message } = fromResponsesResponse(reply, { provider: 'openai-responses', model: 'gpt-5' });
    const claude: Message = {
      ...message,
      thinking: [{ type: 'thinking', provider: 'anthropic', model: 'o4-mini', text: 'mine', signature: 'sig' }],
    };
    for (const foreign of [message, claude]) {
      const body = prepareResponsesRequest({
        model: 'o4-mini',
        messages: toolLoop(foreign),
        tools: [readFile],
        toolChoice: 'auto',
        modelSettings: {},
      });
      expect(JSON.stringify(body.input)).not.toMatch(/reasoning|sig/);
      expect(openaiResponsesProblem(body)).toBeUndefined();
    }
    const thoughtOnly = fromResponsesResponse(served(openaiResponsesReply({ reasoning: ['nothing to say'] })), source).message;
    const body = prepareResponsesRequest({
      model: 'o4-mini',
      messages: [{ role: 'user', content: 'hi' }, thoughtOnly, { role: 'user', content: 'again' }],
      tools: [],
      toolChoice: 'auto',
      modelSettings: {},
    });
    expect(body.input).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'user', content: 'again' },
    ]);
  });

  it('maps status and incomplete reasons, and a refusal, into the closed union', () => {
    expect(
      fromResponsesResponse(served(openaiResponsesReply({ content: 'cut', incomplete: 'max_output_tokens' })), source)
        .finishReason,
    ).toBe('length');
    expect(
      fromResponsesResponse(served(openaiResponsesReply({ content: 'no', incomplete: 'content_filter' })), source).finishReason,
    ).toBe('content_filter');
    const refusal = fromResponsesResponse(served(openaiResponsesItemsReply([{ refusal: 'I cannot help with that.' }])), source);
    expect(refusal).toMatchObject({ finishReason: 'refusal', message: { content: 'I cannot help with that.' } });
    expect(mapResponsesFinishReason('completed', null, false)).toBe('stop');
    expect(mapResponsesFinishReason('failed', null, false)).toBe('other');
    expect(mapResponsesFinishReason('incomplete', 'something_new', false)).toBe('other');
  });

  it('asks for structured output as a json_schema text format, and tool_choice none only with tools', () => {
    const messages: Message[] = [{ role: 'user', content: 'extract' }];
    expect(
      prepareResponsesRequest({
        model: 'o4-mini',
        messages,
        tools: [],
        toolChoice: 'auto',
        modelSettings: {},
        output: { schema: { type: 'object' } },
      }).text,
    ).toEqual({
      format: { type: 'json_schema', name: 'output', schema: { type: 'object' }, strict: false },
    });
    expect(
      prepareResponsesRequest({ model: 'o4-mini', messages, tools: [], toolChoice: 'none', modelSettings: {} }).tool_choice,
    ).toBeUndefined();
    expect(
      prepareResponsesRequest({ model: 'o4-mini', messages, tools: [readFile], toolChoice: 'none', modelSettings: {} })
        .tool_choice,
    ).toBe('none');
  });
});

describe('the fake server refuses what the Responses API refuses', () => {
  const good = prepareResponsesRequest({
    model: 'o4-mini',
    messages: toolLoop(fromResponsesResponse(reply, source).message),
    tools: [readFile],
    toolChoice: 'auto',
    modelSettings: {},
  });
  const input = good.input as unknown as Array<Record<string, unknown>>;
  const withInput = (items: unknown[]) => ({ ...good, input: items });

  it.each([
    [
      'reasoning without its encrypted content',
      () => withInput(input.map((item, index) => (index === 2 ? { ...item, encrypted_content: undefined } : item))),
      404,
      `Item with id '${firstReasoning.id}' not found. Items are not persisted when \`store\` is set to false.`,
    ],
    [
      'encrypted content one byte off',
      () =>
        withInput(
          input.map((item, index) =>
            index === 2 ? { ...item, encrypted_content: `${firstReasoning.encrypted_content.slice(0, -3)}x==` } : item,
          ),
        ),
      400,
      'could not be verified.',
    ],
    [
      'encrypted content under another item id',
      () => withInput(input.map((item, index) => (index === 2 ? { ...item, id: secondReasoning.id } : item))),
      400,
      'could not be verified.',
    ],
    [
      'reasoning without the item that followed it',
      () => withInput(input.slice(0, 3)),
      400,
      `Item '${firstReasoning.id}' of type 'reasoning' was provided without its required following item.`,
    ],
    [
      'a function call without its output',
      () => withInput(input.slice(0, -1)),
      400,
      'No tool output found for function call call_2.',
    ],
    [
      'an output without its function call',
      () => withInput([...input.slice(0, 5), ...input.slice(7)]),
      400,
      'No tool call found for function call output with call_id call_2.',
    ],
    [
      'an item referred to by id with nothing stored',
      () => withInput(input.map((item, index) => (index === 4 ? { ...item, id: 'fc_call_1' } : item))),
      404,
      "Item with id 'fc_call_1' not found.",
    ],
  ])('%s', (_label, body, status, message) => {
    expect(openaiResponsesProblem(good)).toBeUndefined();
    const problem = openaiResponsesProblem(body());
    expect(problem?.status).toBe(status);
    expect(problem?.message).toContain(message);
  });
});
