import { ConfigurationError } from '../../core/errors';
import { defineProvider } from '../define-provider';
import { checkOpenAIEnvironment, loadOpenAI } from '../openai/client';
import { callOpenAIResponses } from './call-openai-responses';
import { openaiResponsesProviderName } from './prepare-request';

/**
 * The OpenAI Responses API (`openai-responses:<model>`): the API OpenAI recommends
 * for agents, and the one that keeps a reasoning model's reasoning across tool
 * calls (encrypted, nothing stored at OpenAI). OPENAI_BASE_URL honoured.
 */
export const openaiResponsesProvider = defineProvider({
  name: openaiResponsesProviderName,
  checkEnvironment(env) {
    const problem = checkOpenAIEnvironment(env);
    if (problem) throw new ConfigurationError(problem);
  },
  async preload() {
    await loadOpenAI();
  },
  call: callOpenAIResponses,
});
