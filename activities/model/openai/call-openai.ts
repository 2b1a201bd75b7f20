import OpenAI from 'openai';
import type { ModelResponse } from '../../../agent/messages';
import type { ProviderCall } from '../provider-call';
import { toolJsonSchema } from '../../../tools';
import { toOpenAIMessages } from './convert-messages';
import { fromOpenAICompletion } from './convert-response';

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
  const completion = await client.chat.completions.create(
    {
      model: call.model,
      messages: toOpenAIMessages(call.messages),
      ...(call.tools.length > 0 && {
        tools: call.tools.map((tool) => ({
          type: 'function' as const,
          function: { name: tool.name, description: tool.description, parameters: toolJsonSchema(tool) },
        })),
      }),
      ...(call.maxOutputTokens !== undefined && { max_completion_tokens: call.maxOutputTokens }),
    },
    { signal: call.signal },
  );
  return fromOpenAICompletion(completion);
}
