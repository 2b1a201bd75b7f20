import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { producedBy } from '../../core/reply-parts';
import type { ProviderRequest } from '../provider-call';
import { toResponsesInput } from './convert-messages';

/** The name the built-in Responses API provider registers: `openai-responses:<model>`. */
export const openaiResponsesProviderName = 'openai-responses';

/**
 * Neutral request → Responses API body, applying its rules in one place. Nothing
 * is stored server-side (`store: false`), so reasoning is asked for encrypted
 * (`include: ["reasoning.encrypted_content"]`) and goes back in the input, as it
 * came, on every later call: only this provider's, from this model. Empty
 * replies are left out (a reasoning item without the item that followed it is
 * refused), `tool_choice` comes only with tools, the effort is passed as
 * `reasoning.effort`, structured output is a json_schema text format.
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
  return {
    model: request.model,
    input: toResponsesInput(messages, producedBy({ provider: openaiResponsesProviderName, model: request.model })),
    store: false,
    include: ['reasoning.encrypted_content'],
    ...(tools.length > 0 && { tools }),
    ...(tools.length > 0 && request.toolChoice === 'none' && { tool_choice: 'none' as const }),
    ...(settings.maxOutputTokens !== undefined && { max_output_tokens: settings.maxOutputTokens }),
    ...(settings.temperature !== undefined && { temperature: settings.temperature }),
    ...(settings.reasoningEffort !== undefined && { reasoning: { effort: settings.reasoningEffort } }),
    // Not strict: any zod schema's JSON form is accepted; the model activity checks the answer.
    ...(request.output && {
      text: { format: { type: 'json_schema' as const, name: 'output', schema: request.output.schema, strict: false } },
    }),
  };
}
