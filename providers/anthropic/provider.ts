import { ConfigurationError } from '../../core/errors';
import { defineProvider } from '../define-provider';
import { callAnthropic, loadAnthropic } from './call-anthropic';
import { anthropicProviderName } from './prepare-request';

/** The Anthropic Messages API (ANTHROPIC_BASE_URL honoured). */
export const anthropicProvider = defineProvider({
  name: anthropicProviderName,
  checkEnvironment(env) {
    if (!env.ANTHROPIC_API_KEY) throw new ConfigurationError('ANTHROPIC_API_KEY is not set in the worker environment');
  },
  async preload() {
    await loadAnthropic();
  },
  call: callAnthropic,
});
