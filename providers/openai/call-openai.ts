import OpenAI from 'openai';
import type { ModelResponse } from '../../core/messages';
import type { ProviderCall } from '../provider-call';
import { fromOpenAICompletion } from './convert-response';
import { prepareOpenAIRequest } from './prepare-request';

/**
 * Calls OpenAI Chat Completions, or any compatible server (Ollama, vLLM, LM Studio)
 * when OPENAI_BASE_URL is set. The SDK's own retries are off: Temporal retries the activity.
 */
export async function callOpenAI(call: ProviderCall): Promise<ModelResponse> {
  const client = new OpenAI({
    apiKey: call.env.OPENAI_API_KEY ?? (call.env.OPENAI_BASE_URL ? 'not-needed' : undefined),
    baseURL: call.env.OPENAI_BASE_URL || undefined,
    maxRetries: 0,
    timeout: call.timeoutMs,
  });
  const completion = await client.chat.completions.create(prepareOpenAIRequest(call), { signal: call.signal });
  call.onUsage?.({ inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 });
  return fromOpenAICompletion(completion);
}
