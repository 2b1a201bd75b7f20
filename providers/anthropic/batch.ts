import type Anthropic from '@anthropic-ai/sdk';
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import { ClientCache } from '../client-cache';
import { BatchRequestLost, BatchRequestRefused, type BatchCapability, type BatchContext } from '../batch-capability';
import type { ProviderCall } from '../provider-call';
import { loadAnthropic } from './call-anthropic';
import { fromAnthropicMessage } from './convert-response';
import { findEarlierBatch } from './find-earlier-batch';
import { anthropicBetaHeaders, anthropicProviderName, prepareAnthropicRequest } from './prepare-request';

const clients = new ClientCache<Anthropic>();

// The same settings as the online call's client (call-anthropic.ts): the key and base URL from the worker's
// environment, the SDK's retries off (Temporal retries), no span of the SDK's own.
async function anthropicClient(context: Pick<BatchContext, 'env' | 'timeoutMs'>): Promise<Anthropic> {
  const { default: AnthropicClient } = await loadAnthropic();
  const settings = {
    apiKey: context.env.ANTHROPIC_API_KEY,
    baseURL: context.env.ANTHROPIC_BASE_URL || undefined,
    timeout: context.timeoutMs,
  };
  return clients.get(settings, () => new AnthropicClient({ ...settings, maxRetries: 0, openTelemetry: false }));
}

/**
 * Anthropic's Message Batches: the request as the one request of a batch (messages.batches.create, with the beta
 * header its body needs; a retried or waiting submission first looks for the batch an earlier attempt made:
 * find-earlier-batch.ts), its processing status (retrieve), and its result (results, by custom_id). The body is
 * the one the online call would send, never streamed.
 */
export const anthropicBatch: BatchCapability = {
  async submit(call, customId, earlier) {
    const client = await anthropicClient(call);
    if (earlier) {
      const found = await findEarlierBatch(client, customId, earlier, call.signal);
      if (found) return found;
    }
    const params = prepareAnthropicRequest(call);
    const headers = anthropicBetaHeaders(params);
    const batch = await client.messages.batches.create(
      { requests: [{ custom_id: customId, params }] },
      { signal: call.signal, headers },
    );
    return { id: batch.id, customId };
  },

  async check(submitted, context) {
    const client = await anthropicClient(context);
    const batch = await client.messages.batches.retrieve(submitted.id, {}, { signal: context.signal });
    return batch.processing_status === 'ended' ? { status: 'ended' } : { status: 'pending', detail: batch.processing_status };
  },

  async result(submitted, call: ProviderCall) {
    const client = await anthropicClient(call);
    const results = await client.messages.batches.results(submitted.id, {}, { signal: call.signal });
    let found: Anthropic.Messages.MessageBatchIndividualResponse | undefined;
    for await (const entry of results) {
      if (entry?.custom_id !== submitted.customId) continue;
      // Two results for one request: the server's words cannot be trusted to say which is the answer.
      if (found)
        throw new BatchRequestLost(
          'missing',
          `batch ${submitted.id} holds two results for ${submitted.customId}; one was expected`,
        );
      found = entry;
    }
    const result = found?.result;
    switch (result?.type) {
      case 'succeeded':
        if (!result.message || typeof result.message !== 'object' || !Array.isArray((result.message as Message).content))
          throw new Error(`batch ${submitted.id}: the result of ${submitted.customId} is not a message`);
        return fromAnthropicMessage(result.message, {
          finalOutput: call.output !== undefined,
          source: { provider: anthropicProviderName, model: call.model },
        });
      case 'errored': {
        const error = result.error?.error;
        const message = `${error?.type ?? 'error'}: ${error?.message ?? 'no message'}`;
        // invalid_request_error and the like are refusals of the request, final as online; overloaded or api errors may pass later.
        if (error?.type === 'invalid_request_error' || error?.type === 'not_found_error' || error?.type === 'permission_error')
          throw new BatchRequestRefused(400, message);
        throw new BatchRequestLost('server_error', `batch ${submitted.id}: ${message}`);
      }
      case 'expired':
        throw new BatchRequestLost('expired', `batch ${submitted.id} expired before answering ${submitted.customId}`);
      case 'canceled':
        throw new BatchRequestLost('canceled', `batch ${submitted.id} was cancelled before answering ${submitted.customId}`);
      default:
        throw new BatchRequestLost('missing', `batch ${submitted.id} has no result for ${submitted.customId}`);
    }
  },
};
