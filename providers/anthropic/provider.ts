import { ConfigurationError } from '../../core/errors';
import { defineProvider } from '../define-provider';
import { anthropicAttachments } from '../built-in-attachments';
import { anthropicBatch } from './batch';
import { callAnthropic, loadAnthropic } from './call-anthropic';
import { anthropicProviderName, finalOutputToolName } from './prepare-request';
import { anthropicSettingsProblem } from './settings-rules';

/** The Anthropic Messages API (ANTHROPIC_BASE_URL honoured). */
export const anthropicProvider = defineProvider({
  name: anthropicProviderName,
  attachments: anthropicAttachments,
  // Structured output is a tool the model calls to finish (prepare-request.ts), so no other tool may have its name.
  reservedToolNames: { [finalOutputToolName]: 'structured output' },
  modelSettingsProblem: anthropicSettingsProblem,
  checkEnvironment(env) {
    if (!env.ANTHROPIC_API_KEY) throw new ConfigurationError('ANTHROPIC_API_KEY is not set in the worker environment');
  },
  // The SDK's default unless ANTHROPIC_BASE_URL says otherwise, as call-anthropic.ts builds its client.
  endpoint: (env) => env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com',
  async preload() {
    await loadAnthropic();
  },
  call: callAnthropic,
  batch: anthropicBatch,
});
