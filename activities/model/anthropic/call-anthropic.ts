import Anthropic from '@anthropic-ai/sdk';
import type { ModelResponse } from '../../../agent/messages';
import type { ProviderCall } from '../provider-call';
import { toolJsonSchema } from '../../../tools';
import { toAnthropicPrompt } from './convert-messages';
import { fromAnthropicMessage } from './convert-response';

// Anthropic requires max_tokens on every request.
const defaultMaxOutputTokens = 4096;

/** Calls the Anthropic Messages API (ANTHROPIC_BASE_URL honoured). The SDK's own retries are off. */
export async function callAnthropic(call: ProviderCall): Promise<ModelResponse> {
  const client = new Anthropic({
    apiKey: call.env.ANTHROPIC_API_KEY,
    baseURL: call.env.ANTHROPIC_BASE_URL || undefined,
    maxRetries: 0,
    timeout: call.timeoutMs,
  });
  const prompt = toAnthropicPrompt(call.messages);
  const response = await client.messages.create(
    {
      model: call.model,
      max_tokens: call.maxOutputTokens ?? defaultMaxOutputTokens,
      messages: prompt.messages,
      ...(prompt.system !== undefined && { system: prompt.system }),
      ...(call.tools.length > 0 && {
        tools: call.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          input_schema: toolJsonSchema(tool) as Anthropic.Tool.InputSchema,
        })),
      }),
    },
    { signal: call.signal },
  );
  return fromAnthropicMessage(response);
}
