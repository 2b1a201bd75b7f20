import type { ModelResponse } from '../../core/messages';
import type { ProviderCall } from '../provider-call';
import { openaiClient } from './client';
import { fromOpenAICompletion } from './convert-response';
import { openaiProviderName, prepareOpenAIRequest } from './prepare-request';

/** Calls OpenAI Chat Completions, or any compatible server (Ollama, vLLM, LM Studio) when OPENAI_BASE_URL is set. */
export async function callOpenAI(call: ProviderCall): Promise<ModelResponse> {
  const completion = await openaiClient(call).chat.completions.create(prepareOpenAIRequest(call), { signal: call.signal });
  // Reported before the reply is read: a paid reply that turns out unreadable still counts.
  call.onUsage?.({ inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 });
  return fromOpenAICompletion(completion, { provider: openaiProviderName, model: call.model });
}
