import { ConfigurationError } from '../../core/errors';
import { defineProvider } from '../define-provider';
import { callOpenAI } from './call-openai';
import { openaiProviderName } from './prepare-request';

/** OpenAI Chat Completions, or any compatible server (Ollama, vLLM, LM Studio) with OPENAI_BASE_URL. */
export const openaiProvider = defineProvider({
  name: openaiProviderName,
  checkEnvironment(env) {
    if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) {
      throw new ConfigurationError('OPENAI_API_KEY is not set in the worker environment (or set OPENAI_BASE_URL for a local server)');
    }
  },
  call: callOpenAI,
});
