import { ConfigurationError } from '../../core/errors';
import type { ModelProvider } from '../provider-call';
import { checkOpenAIEnvironment, loadOpenAI, openaiEndpoint } from './client';
import { openaiPromptCacheProblem } from './prompt-cache';

/**
 * What both OpenAI providers (Chat Completions and Responses) take from the one OpenAI account and SDK they share:
 * the settings OpenAI refuses, the environment a worker needs, where calls go, and the SDK to load ahead of the
 * first call. One place, so that the two providers cannot drift apart on any of them.
 */
export const openaiAccountHooks: Pick<ModelProvider, 'modelSettingsProblem' | 'checkEnvironment' | 'endpoint' | 'preload'> = {
  modelSettingsProblem: openaiPromptCacheProblem,
  checkEnvironment(env) {
    const problem = checkOpenAIEnvironment(env);
    if (problem) throw new ConfigurationError(problem);
  },
  endpoint: openaiEndpoint,
  async preload() {
    await loadOpenAI();
  },
};
