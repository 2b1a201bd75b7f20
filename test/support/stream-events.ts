/**
 * Chat Completions and Anthropic Messages replies as the server-sent events
 * each API streams when asked to (`stream: true`), built from the whole reply
 * the fake server would otherwise answer with. Text is cut into word-sized
 * deltas, as the APIs send them. (The Responses API's events: ./responses-events.ts.)
 */

/** Cuts text the way a model writes it: a word and the space after it at a time. */
export function textPieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/**
 * A Chat Completion as `chat.completion.chunk` events: the role, the reasoning a
 * compatible server sends, the content and refusal piece by piece, each tool call
 * (id and name first, then its arguments), the finish reason, then, with
 * `stream_options.include_usage`, a last chunk with the usage and no choices; then `[DONE]`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
export function chatCompletionEvents(completion: any, includeUsage: boolean): string[] {
  const choice = completion.choices[0];
  const message = choice.message;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    JSON.stringify({
      id: completion.id,
      object: 'chat.completion.chunk',
      created: completion.created,
      model: completion.model,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
      ...(includeUsage && { usage: null }),
    });
  const events = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const field of ['reasoning_content', 'reasoning']) {
    if (typeof message[field] === 'string') events.push(...textPieces(message[field]).map((piece) => chunk({ [field]: piece })));
  }
  if (typeof message.content === 'string') events.push(...textPieces(message.content).map((piece) => chunk({ content: piece })));
  if (typeof message.refusal === 'string') events.push(...textPieces(message.refusal).map((piece) => chunk({ refusal: piece })));
  (message.tool_calls ?? []).forEach((call: { id: string; function: { name: string; arguments: string } }, index: number) => {
    events.push(
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }),
    );
    events.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
  });
  events.push(chunk({}, choice.finish_reason));
  if (includeUsage) {
    events.push(
      JSON.stringify({
        id: completion.id,
        object: 'chat.completion.chunk',
        created: completion.created,
        model: completion.model,
        choices: [],
        usage: completion.usage,
      }),
    );
  }
  return [...events.map((data) => `data: ${data}\n\n`), 'data: [DONE]\n\n'];
}

/**
 * An Anthropic message as its stream events: message_start (no content yet),
 * each block started, its deltas (text and thinking piece by piece, a thinking
 * block's signature, a tool call's input as JSON), and stopped, then
 * message_delta with the stop reason and the output tokens, and message_stop.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
export function anthropicMessageEvents(message: any): string[] {
  const events: Array<[string, Record<string, unknown>]> = [];
  const { content, stop_reason, stop_sequence, usage, ...rest } = message;
  events.push([
    'message_start',
    {
      message: {
        ...rest,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // The input's counts, cache reads and writes included, come first, as the API sends them.
        usage: { ...usage, output_tokens: 1 },
      },
    },
  ]);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
  content.forEach((block: any, index: number) => {
    const delta = (fields: Record<string, unknown>) => events.push(['content_block_delta', { index, delta: fields }]);
    switch (block.type) {
      case 'text':
        events.push(['content_block_start', { index, content_block: { type: 'text', text: '' } }]);
        textPieces(block.text).forEach((text) => delta({ type: 'text_delta', text }));
        break;
      case 'thinking':
        events.push(['content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }]);
        textPieces(block.thinking).forEach((thinking) => delta({ type: 'thinking_delta', thinking }));
        delta({ type: 'signature_delta', signature: block.signature });
        break;
      case 'tool_use':
        events.push([
          'content_block_start',
          { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } },
        ]);
        delta({ type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) });
        break;
      default:
        events.push(['content_block_start', { index, content_block: block }]);
    }
    events.push(['content_block_stop', { index }]);
  });
  const { input_tokens: _sent, ...outputUsage } = usage;
  events.push(['message_delta', { delta: { stop_reason, stop_sequence }, usage: outputUsage }]);
  events.push(['message_stop', {}]);
  return events.map(([type, fields]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`);
}
