import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { ModelResponse } from '../../core/messages';
import type { ProviderCall } from '../provider-call';
import { completionFromChunks } from './assemble-stream';
import { openaiClient } from './client';
import { chatCompletionUsage, fromOpenAICompletion } from './convert-response';
import { openaiProviderName, prepareOpenAIRequest } from './prepare-request';

/**
 * Calls OpenAI Chat Completions, or any compatible server (Ollama, vLLM, LM Studio) when OPENAI_BASE_URL is set;
 * streamed (usage included) when the text is wanted as it is written.
 */
export async function callOpenAI(call: ProviderCall): Promise<ModelResponse> {
  const client = await openaiClient(call);
  const body = prepareOpenAIRequest(call);
  let completion: ChatCompletion;
  if (call.onTextDelta) {
    const chunks = await client.chat.completions.create(
      { ...body, stream: true, stream_options: { include_usage: true } },
      { signal: call.signal },
    );
    completion = await completionFromChunks(chunks, call.onTextDelta);
  } else {
    completion = await client.chat.completions.create(body, { signal: call.signal });
  }
  // Reported before the reply is read: a paid reply that turns out unreadable still counts.
  call.onUsage?.(chatCompletionUsage(completion.usage));
  return fromOpenAICompletion(completion, { provider: openaiProviderName, model: call.model });
}
