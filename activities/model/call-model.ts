import { CancelledFailure } from '@temporalio/common';
import { z } from 'zod';
import type { AgentRegistry } from '../../agents/registry';
import { ConfigurationError } from '../../core/errors';
import { parseModelId } from '../../core/model-id';
import { untracedSpans, type AgentSpans } from '../../telemetry/agent-spans';
import type { TranscriptStore } from '../transcript/transcript-store';
import { heartbeating } from '../heartbeating';
import { classifyProviderError } from './classify-error';
import type { ModelCallInput, ModelTurn } from './model-input';
import { checkOutput } from './structured-output';
import { withTranscript } from './with-transcript';

export type { ModelCallInput, ModelTurn } from './model-input';

export interface ModelActivityOptions {
  /** The providers, and the tools and agents whose definitions a call names. */
  registry: AgentRegistry;
  env: NodeJS.ProcessEnv;
  transcripts: TranscriptStore;
  /** Wraps each provider call in a GenAI span when tracing is on. */
  spans?: AgentSpans;
}

/**
 * The model activity: finds the provider a call names among the registered
 * ones, rebuilds the conversation from the transcript store, asks for and checks
 * structured output when the agent has an outputSchema, and classifies whatever
 * the provider threw, once, for every provider.
 */
export function createModelActivities({ registry, env, transcripts, spans = untracedSpans }: ModelActivityOptions) {
  async function callModel(input: ModelCallInput): Promise<ModelTurn> {
    let providerName = 'model';
    try {
      return await heartbeating(async (context) => {
        const id = parseModelId(input.model);
        providerName = id.provider;
        const provider = registry.providers.get(id.provider);
        if (!provider) {
          throw new ConfigurationError(`unknown provider "${id.provider}"; this worker has: ${[...registry.providers.keys()].join(', ')}`);
        }
        provider.checkEnvironment?.(env);
        const outputSchema = input.expectsOutput && input.agent ? registry.outputSchema(input.agent) : undefined;
        if (input.expectsOutput && !outputSchema) throw new ConfigurationError(`agent "${input.agent}" has no outputSchema on this worker`);
        return withTranscript(transcripts, input, async (request) => {
          const wantsOutput = outputSchema !== undefined && request.toolChoice === 'auto';
          const callProvider = () => provider.call({
            model: id.model,
            messages: request.messages,
            tools: request.tools.map(registry.toolDefinition),
            toolChoice: request.toolChoice,
            maxOutputTokens: input.modelSettings?.maxOutputTokens,
            temperature: input.modelSettings?.temperature,
            ...(wantsOutput && { output: { schema: outputJsonSchema(outputSchema) } }),
            env,
            signal: context.cancellationSignal,
            timeoutMs: context.info.startToCloseTimeoutMs,
          });
          const response = await spans.modelCall(
            {
              provider: id.provider,
              model: id.model,
              agent: input.agent,
              conversationId: context.info.workflowExecution?.workflowId,
              maxOutputTokens: input.modelSettings?.maxOutputTokens,
              temperature: input.modelSettings?.temperature,
              ...(wantsOutput && { outputType: 'json' as const }),
            },
            callProvider,
          );
          return wantsOutput ? { ...response, ...checkOutput(outputSchema, response) } : response;
        });
      });
    } catch (error) {
      if (error instanceof CancelledFailure) throw error;
      throw classifyProviderError(error, providerName);
    }
  }

  return { callModel };
}

function outputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, { io: 'output' });
  return jsonSchema;
}
