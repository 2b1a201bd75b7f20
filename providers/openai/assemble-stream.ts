import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';

/** What OpenAI-compatible servers add to a delta: the model's reasoning (DeepSeek, vLLM: reasoning_content; Ollama: reasoning). */
interface ReasoningDelta {
  reasoning_content?: unknown;
  reasoning?: unknown;
}

/**
 * A streamed Chat Completion (`stream: true`, `stream_options.include_usage`)
 * put back together as the Chat Completion the API would have answered: content,
 * refusal and reasoning joined, tool calls assembled by index (id and name
 * first, arguments in pieces), the finish reason, and the usage of the last
 * chunk. Each piece of content is reported as it arrives.
 */
export async function completionFromChunks(
  chunks: AsyncIterable<ChatCompletionChunk>,
  onText: (text: string) => void,
): Promise<ChatCompletion> {
  let head: Pick<ChatCompletionChunk, 'id' | 'created' | 'model'> | undefined;
  let usage: ChatCompletion['usage'];
  let content = '';
  let refusal = '';
  const reasoning = { reasoning_content: '', reasoning: '' };
  let finishReason: ChatCompletion.Choice['finish_reason'] | undefined;
  const toolCalls: Array<{ id: string; name: string; arguments: string }> = [];
  for await (const chunk of chunks) {
    head ??= { id: chunk.id, created: chunk.created, model: chunk.model };
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta as ChatCompletionChunk.Choice.Delta & ReasoningDelta;
    if (delta.content) {
      content += delta.content;
      onText(delta.content);
    }
    if (delta.refusal) refusal += delta.refusal;
    if (typeof delta.reasoning_content === 'string') reasoning.reasoning_content += delta.reasoning_content;
    if (typeof delta.reasoning === 'string') reasoning.reasoning += delta.reasoning;
    for (const call of delta.tool_calls ?? []) {
      const slot = (toolCalls[call.index] ??= { id: '', name: '', arguments: '' });
      if (call.id) slot.id = call.id;
      if (call.function?.name) slot.name = call.function.name;
      if (call.function?.arguments) slot.arguments += call.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  // A stream that stops before its finish reason is an answer cut off: an error the model activity retries.
  if (!head || !finishReason) throw new Error('the Chat Completions stream ended before the reply was finished');
  const calls = toolCalls.filter(Boolean);
  return {
    ...head,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: finishReason,
        message: {
          role: 'assistant',
          content: content || null,
          refusal: refusal || null,
          ...(reasoning.reasoning_content && { reasoning_content: reasoning.reasoning_content }),
          ...(reasoning.reasoning && { reasoning: reasoning.reasoning }),
          ...(calls.length > 0 && {
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: 'function' as const,
              function: { name: call.name, arguments: call.arguments },
            })),
          }),
        },
      },
    ],
    ...(usage && { usage }),
  };
}
