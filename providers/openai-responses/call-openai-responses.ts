import type { Response } from 'openai/resources/responses/responses';
import type { ModelResponse } from '../../core/messages';
import { openaiClient } from '../openai/client';
import type { ProviderCall } from '../provider-call';
import { fromResponsesResponse, responsesUsage } from './convert-response';
import { openaiResponsesProviderName, prepareResponsesRequest } from './prepare-request';

/**
 * Calls the OpenAI Responses API (`client.responses.create`), or a compatible server at OPENAI_BASE_URL; streamed
 * when the text is wanted as it is written, the whole response then taken from the stream's last event.
 */
export async function callOpenAIResponses(call: ProviderCall): Promise<ModelResponse> {
  const client = await openaiClient(call);
  const body = prepareResponsesRequest(call);
  const response = call.onTextDelta
    ? await streamedResponse(await client.responses.create({ ...body, stream: true }, { signal: call.signal }), call.onTextDelta)
    : await client.responses.create(body, { signal: call.signal });
  // Reported before the reply is read: a paid reply that turns out unreadable still counts.
  call.onUsage?.(responsesUsage(response.usage));
  return fromResponsesResponse(response, { provider: openaiResponsesProviderName, model: call.model });
}

type ResponsesEvents = AsyncIterable<{ type: string; delta?: unknown; response?: Response; message?: unknown }>;

/** Reports the answer's text (and a refusal's) as it arrives; the completed (or incomplete) event carries the whole response. */
async function streamedResponse(events: ResponsesEvents, onText: (text: string) => void): Promise<Response> {
  for await (const event of events) {
    switch (event.type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (typeof event.delta === 'string' && event.delta) onText(event.delta);
        break;
      case 'response.completed':
      case 'response.incomplete':
        return event.response!;
      case 'response.failed':
        throw new Error(`the response failed: ${event.response?.error?.message ?? 'no reason given'}`);
      case 'error':
        throw new Error(`the response stream failed: ${String(event.message)}`);
      default:
        break;
    }
  }
  throw new Error('the Responses stream ended before the response was complete');
}
