import { ConfigurationError } from './errors';

export interface ModelId {
  /** The name of a registered provider (`openai`, `anthropic`, or one of your own). */
  provider: string;
  model: string;
}

// Provider names are lowercase words joined by dashes: `openai`, `openai-responses`, `my-gateway`.
const providerNamePattern = /^[a-z][a-z0-9-]*$/;

/**
 * Parses `provider:model`, e.g. `openai:gpt-4o-mini` or `anthropic:claude-sonnet-4-5`.
 * Only the form is checked here: which providers exist is up to the worker's
 * registry (a client checks against its own; the worker's prepareRun has the last word).
 */
export function parseModelId(value: string): ModelId {
  if (typeof value !== 'string') {
    // An AI SDK model given where its id belongs (defineAgent({ model: google('…') })) would fail on value.indexOf.
    const modelId = (value as { modelId?: unknown } | null)?.modelId;
    throw new ConfigurationError(
      typeof modelId === 'string'
        ? `model must be a provider:model id, not an AI SDK model: register it (providers: [aiSdkProvider('google', google)]) and name it, as in google:${modelId}`
        : `model must be a provider:model id (for example openai:gpt-4o-mini), got ${value === null ? 'null' : typeof value}`,
    );
  }
  const separator = value.indexOf(':');
  const provider = separator > 0 ? value.slice(0, separator) : '';
  const model = separator > 0 ? value.slice(separator + 1) : '';
  if (!model || !providerNamePattern.test(provider)) {
    throw new ConfigurationError(`model must look like provider:model (for example openai:gpt-4o-mini), got "${value}"`);
  }
  return { provider, model };
}
