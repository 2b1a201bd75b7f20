import type Anthropic from '@anthropic-ai/sdk';
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import type { ModelResponse } from '../../core/messages';
import { loadOnce } from '../../core/load-once';
import { ClientCache } from '../client-cache';
import type { ProviderCall } from '../provider-call';
import { thinkingSeparator } from '../../core/stream-events';
import { anthropicUsage, fromAnthropicMessage } from './convert-response';
import { anthropicBetaHeaders, anthropicProviderName, prepareAnthropicRequest } from './prepare-request';

/**
 * Calls the Anthropic Messages API (ANTHROPIC_BASE_URL honoured). The SDK's own retries are off. When the text is
 * wanted as it is written, the call streams (`messages.stream`), and the SDK puts the message back together.
 */
const clients = new ClientCache<Anthropic>();

/** The SDK, loaded on first use (or ModelProvider.preload): a CLI whose runs use another provider starts ~90 ms sooner without it. */
export const loadAnthropic = loadOnce(() => import('@anthropic-ai/sdk'));

export async function callAnthropic(call: ProviderCall): Promise<ModelResponse> {
  const { default: Anthropic } = await loadAnthropic();
  const settings = {
    apiKey: call.env.ANTHROPIC_API_KEY,
    baseURL: call.env.ANTHROPIC_BASE_URL || undefined,
    timeout: call.timeoutMs,
  };
  const client = clients.get(
    settings,
    () =>
      new Anthropic({
        ...settings,
        maxRetries: 0,
        // The SDK makes a GenAI span of its own for each call when an OpenTelemetry SDK is registered. The model
        // activity already makes one for every provider (telemetry/), so this one would count each call twice.
        openTelemetry: false,
      }),
  );
  const body = prepareAnthropicRequest(call);
  const options = { signal: call.signal, headers: anthropicBetaHeaders(body) };
  let response: Message;
  if (call.onTextDelta) {
    const onText = call.onTextDelta;
    const onThinking = thinkingReporter(call.onThinkingDelta);
    response = await client.messages
      .stream(body, options)
      .on('streamEvent', (event) => {
        if (event.type === 'content_block_start' && event.content_block.type === 'thinking') onThinking.blockStarted();
      })
      .on('thinking', (delta) => onThinking.piece(delta))
      .on('text', (text) => onText(text))
      .finalMessage();
  } else {
    response = await client.messages.create(body, options);
  }
  // Reported before the reply is read: a paid reply that turns out unreadable still counts.
  call.onUsage?.(anthropicUsage(response.usage));
  return fromAnthropicMessage(response, {
    finalOutput: call.output !== undefined,
    source: { provider: anthropicProviderName, model: call.model },
  });
}

/**
 * The thinking deltas as the reply will tell the thinking (readableThinking): the blocks' text joined by
 * `thinkingSeparator`, empty blocks skipped. Redacted blocks have no deltas, so they are never reported.
 */
function thinkingReporter(report: ((text: string) => void) | undefined) {
  let reported = false;
  let newBlock = false;
  return {
    blockStarted: () => void (newBlock = true),
    piece(delta: string) {
      if (!report || !delta) return;
      report(reported && newBlock ? `${thinkingSeparator}${delta}` : delta);
      reported = true;
      newBlock = false;
    },
  };
}
