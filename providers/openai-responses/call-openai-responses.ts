import type { ModelResponse } from '../../core/messages';
import { openaiClient } from '../openai/client';
import type { ProviderCall } from '../provider-call';
import { fromResponsesResponse } from './convert-response';
import { openaiResponsesProviderName, prepareResponsesRequest } from './prepare-request';

/** Calls the OpenAI Responses API (`client.responses.create`), or a compatible server at OPENAI_BASE_URL. */
export async function callOpenAIResponses(call: ProviderCall): Promise<ModelResponse> {
  const response = await openaiClient(call).responses.create(prepareResponsesRequest(call), { signal: call.signal });
  // Reported before the reply is read: a paid reply that turns out unreadable still counts.
  call.onUsage?.({ inputTokens: response.usage?.input_tokens ?? 0, outputTokens: response.usage?.output_tokens ?? 0 });
  return fromResponsesResponse(response, { provider: openaiResponsesProviderName, model: call.model });
}
