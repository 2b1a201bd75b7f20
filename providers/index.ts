import { anthropicProvider } from './anthropic/provider';
import { openaiProvider } from './openai/provider';
import { openaiResponsesProvider } from './openai-responses/provider';
import type { ModelProvider } from './provider-call';

export { defineProvider } from './define-provider';
export { aiSdkProvider } from './ai-sdk/provider';
export type { AiSdkLanguageModel, AiSdkModelFactory, AiSdkModelSource } from './ai-sdk/language-model';
export type { ModelProvider, ProviderCall, ProviderRequest, ToolChoice, ToolDefinition } from './provider-call';

/** The providers every worker has; register your own beside them (createAgentWorker's `providers`). */
export const builtInProviders: ModelProvider[] = [openaiProvider, openaiResponsesProvider, anthropicProvider];
