import { ConfigurationError } from '../../core/errors';
import { defineProvider } from '../define-provider';
import { callOpenAI } from './call-openai';
import { checkOpenAIEnvironment, loadOpenAI } from './client';
import { openaiProviderName } from './prepare-request';

/** OpenAI Chat Completions, or any compatible server (Ollama, vLLM, LM Studio) with OPENAI_BASE_URL. */
export const openaiProvider = defineProvider({
  name: openaiProviderName,
  checkEnvironment(env) {
    const problem = checkOpenAIEnvironment(env);
    if (problem) throw new ConfigurationError(problem);
  },
  async preload() {
    await loadOpenAI();
  },
  call: callOpenAI,
});
