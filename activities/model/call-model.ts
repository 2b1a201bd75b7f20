import { CancelledFailure } from '@temporalio/common';
import { ConfigurationError } from '../../core/errors';
import type { ModelResponse } from '../../core/messages';
import { parseModelId, type Provider } from '../../core/model-id';
import type { Tool } from '../../tools';
import { callAnthropic } from '../../providers/anthropic/call-anthropic';
import { classifyProviderError } from './classify-error';
import { callOpenAI } from '../../providers/openai/call-openai';
import type { ModelCallInput, ModelTurn } from './model-input';
import type { ProviderCall } from '../../providers/provider-call';
import type { TranscriptStore } from '../transcript/transcript-store';
import { agentStores } from '../../storage/stores';
import { heartbeating } from '../heartbeating';
import { withTranscript } from './with-transcript';

export type { ModelCallInput, ModelTurn } from './model-input';

const adapters: Record<Provider, (call: ProviderCall) => Promise<ModelResponse>> = {
  openai: callOpenAI,
  anthropic: callAnthropic,
};

export function createModelActivities(
  tools: Tool[],
  env: NodeJS.ProcessEnv = process.env,
  store: TranscriptStore = agentStores().transcripts,
) {
  const registry = new Map(tools.map((tool) => [tool.name, tool]));

  async function callModel(input: ModelCallInput): Promise<ModelTurn> {
    let provider = 'model';
    try {
      return await heartbeating((context) => {
        const id = parseModelId(input.model);
        provider = id.provider;
        assertApiKey(id.provider, env);
        return withTranscript(store, input, (request) =>
          adapters[id.provider]({
            model: id.model,
            messages: request.messages,
            tools: request.tools.map((name) => lookupTool(registry, name)),
            toolChoice: request.toolChoice,
            maxOutputTokens: input.maxOutputTokens,
            env,
            signal: context.cancellationSignal,
            timeoutMs: context.info.startToCloseTimeoutMs,
          }),
        );
      });
    } catch (error) {
      if (error instanceof CancelledFailure) throw error;
      throw classifyProviderError(error, provider);
    }
  }

  return { callModel };
}

function lookupTool(registry: Map<string, Tool>, name: string): Tool {
  const tool = registry.get(name);
  if (!tool) throw new ConfigurationError(`tool "${name}" is not registered on this worker`);
  return tool;
}

function assertApiKey(provider: Provider, env: NodeJS.ProcessEnv): void {
  if (provider === 'openai' && !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) {
    throw new ConfigurationError(
      'OPENAI_API_KEY is not set in the worker environment (or set OPENAI_BASE_URL for a local server)',
    );
  }
  if (provider === 'anthropic' && !env.ANTHROPIC_API_KEY) {
    throw new ConfigurationError('ANTHROPIC_API_KEY is not set in the worker environment');
  }
}
