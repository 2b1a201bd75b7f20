import type { LanguageModelV4CallOptions, LanguageModelV4FunctionTool } from '@ai-sdk/provider';
import { ConfigurationError } from '../../core/errors';
import type { ModelResponse } from '../../core/messages';
import { producedBy } from '../../core/reply-parts';
import type { ProviderCall } from '../provider-call';
import { takesToolResultMedia, toLanguageModelPrompt } from './convert-messages';
import type { AiSdkLanguageModel } from './language-model';
import { readLanguageModelStream } from './read-stream';
import { wireCallIds } from './wire-call-ids';

/** What the AI SDK's errors of configuration are called (`AISDKError.name`): fixing the code or the environment helps, retrying does not. */
const configurationErrors = new Set([
  'AI_LoadAPIKeyError',
  'AI_LoadSettingError',
  'AI_UnsupportedFunctionalityError',
  'AI_InvalidPromptError',
  'AI_InvalidArgumentError',
  'AI_NoSuchModelError',
]);

/**
 * One model call through an AI SDK language model: the neutral request as the spec's call options, `doStream`
 * called directly (the spec's calls never retry; the retries of `ai`'s generateText are not used, so Temporal owns
 * every one), and the stream read back (./read-stream.ts). An APICallError is thrown as it is, for the model
 * activity to classify (activities/model/classify-error.ts reads its statusCode, isRetryable and responseHeaders);
 * the package's errors of configuration (a missing API key, a prompt it cannot send) become ConfigurationErrors.
 */
export async function callLanguageModel(
  model: AiSdkLanguageModel,
  call: ProviderCall,
  source: { provider: string; model: string },
): Promise<ModelResponse> {
  const options: LanguageModelV4CallOptions = {
    prompt: toLanguageModelPrompt(call.messages, {
      keepThinking: producedBy(source),
      wireCallId: wireCallIds(model.provider),
      specificationVersion: model.specificationVersion,
      toolResultMedia: takesToolResultMedia(model.provider),
    }),
    ...(call.modelSettings.maxOutputTokens !== undefined && { maxOutputTokens: call.modelSettings.maxOutputTokens }),
    ...(call.modelSettings.temperature !== undefined && { temperature: call.modelSettings.temperature }),
    ...(call.modelSettings.reasoningEffort !== undefined && { reasoning: call.modelSettings.reasoningEffort }),
    ...(call.tools.length > 0 && { tools: call.tools.map(functionTool), toolChoice: { type: call.toolChoice } }),
    ...(call.output && { responseFormat: { type: 'json', schema: call.output.schema, name: 'final_output' } }),
    abortSignal: Number.isFinite(call.timeoutMs)
      ? AbortSignal.any([call.signal, AbortSignal.timeout(call.timeoutMs)])
      : call.signal,
  };
  try {
    const { stream } = await model.doStream(options);
    return await readLanguageModelStream(stream, {
      source,
      onTextDelta: call.onTextDelta,
      onThinkingDelta: call.onThinkingDelta,
      onUsage: call.onUsage,
    });
  } catch (error) {
    if (error instanceof Error && configurationErrors.has(error.name)) {
      throw new ConfigurationError(`${source.provider} (${model.provider}): ${error.message}`);
    }
    throw error;
  }
}

function functionTool(tool: ProviderCall['tools'][number]): LanguageModelV4FunctionTool {
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as LanguageModelV4FunctionTool['inputSchema'],
  };
}
