import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { producedBy } from '../../core/reply-parts';
import type { ProviderRequest } from '../provider-call';
import { toResponsesInput } from './convert-messages';
import { promptCacheFields } from '../openai/prompt-cache';

/** The name the built-in Responses API provider registers: `openai-responses:<model>`. */
export const openaiResponsesProviderName = 'openai-responses';

/**
 * Neutral request → Responses API body, applying its rules in one place. Nothing
 * is stored server-side (`store: false`), so reasoning is asked for encrypted
 * (`include: ["reasoning.encrypted_content"]`) and goes back in the input, as it
 * came, on every later call: only this provider's, from this model. Empty
 * replies are left out (a reasoning item without the item that followed it is
 * refused), `tool_choice` comes only with tools, the effort is passed as
 * `reasoning.effort`, structured output is a json_schema text format, and the
 * session's `prompt_cache_key` goes with every call (../openai/prompt-cache.ts).
 */
export function prepareResponsesRequest(request: ProviderRequest): ResponseCreateParamsNonStreaming {
  // thinkingBudget is Anthropic's: the Responses API reasons by effort.
  const settings = request.modelSettings;
  const messages = request.messages.filter(
    (message) => !(message.role === 'assistant' && message.toolCalls.length === 0 && !message.content.trim()),
  );
  const tools = request.tools.map((tool) => ({
    type: 'function' as const,
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
  // Fields in a fixed order, what every call of a session shares first and the conversation last, so that two calls
  // of a session are the same bytes up to their new input (OpenAI caches the longest prefix it has seen).
  return {
    model: request.model,
    ...promptCacheFields(settings, request.sessionKey),
    store: false,
    include: ['reasoning.encrypted_content'],
    ...(tools.length > 0 && { tools }),
    ...(settings.maxOutputTokens !== undefined && { max_output_tokens: settings.maxOutputTokens }),
    ...(settings.temperature !== undefined && { temperature: settings.temperature }),
    ...(settings.reasoningEffort !== undefined && { reasoning: { effort: settings.reasoningEffort } }),
    // Not strict: any zod schema's JSON form is accepted; the model activity checks the answer.
    ...(request.output && {
      text: { format: { type: 'json_schema' as const, name: 'output', schema: request.output.schema, strict: false } },
    }),
    input: toResponsesInput(messages, producedBy({ provider: openaiResponsesProviderName, model: request.model })),
    ...(tools.length > 0 && request.toolChoice === 'none' && { tool_choice: 'none' as const }),
  };
}
