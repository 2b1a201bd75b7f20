import { ConfigurationError } from './errors';

export const providers = ['openai', 'anthropic'] as const;
export type Provider = (typeof providers)[number];

export interface ModelId {
  provider: Provider;
  model: string;
}

/** Parses `provider:model`, e.g. `openai:gpt-4o-mini` or `anthropic:claude-sonnet-4-5`. */
export function parseModelId(value: string): ModelId {
  const separator = value.indexOf(':');
  const provider = separator > 0 ? value.slice(0, separator) : '';
  const model = separator > 0 ? value.slice(separator + 1) : '';
  if (!model) {
    throw new ConfigurationError(`model must look like provider:model (for example openai:gpt-4o-mini), got "${value}"`);
  }
  if (!(providers as readonly string[]).includes(provider)) {
    throw new ConfigurationError(`unknown provider "${provider}" in model "${value}"; known providers: ${providers.join(', ')}`);
  }
  return { provider: provider as Provider, model };
}
