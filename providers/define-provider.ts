import { ConfigurationError } from '../core/errors';
import { looksLikeLanguageModel } from './ai-sdk/language-model';
import type { ModelProvider } from './provider-call';

const providerNamePattern = /^[a-z][a-z0-9-]*$/;

/** Defines a model provider to register on a worker beside (or instead of) the built-in ones; checked here, once. */
export function defineProvider(provider: ModelProvider): ModelProvider {
  if (looksLikeLanguageModel(provider)) {
    // Registered as it is, an AI SDK model would be a provider named "undefined" that nothing can call.
    const name = typeof provider.provider === 'string' ? provider.provider.split('.')[0] : 'name';
    throw new ConfigurationError(
      `an AI SDK language model (${String(provider.provider)} ${String(provider.modelId)}) is not a provider by itself: register aiSdkProvider('${name}', model) to name it ${name}:${String(provider.modelId)}, or aiSdkProvider('${name}', <the package's provider>) to name any of its models`,
    );
  }
  if (typeof provider !== 'object' || provider === null || typeof provider.name !== 'string') {
    throw new ConfigurationError(
      `a provider is a value with a name and call(request) (defineProvider), or an AI SDK model registered with aiSdkProvider('<name>', model); got ${provider === null ? 'null' : typeof provider}`,
    );
  }
  if (!providerNamePattern.test(provider.name)) {
    throw new ConfigurationError(
      `provider name "${provider.name}" must be lowercase words joined by dashes (${providerNamePattern})`,
    );
  }
  if (typeof provider.call !== 'function')
    throw new ConfigurationError(`provider "${provider.name}" needs a call(request) function`);
  const reserved = provider.reservedToolNames;
  if (
    reserved !== undefined &&
    (typeof reserved !== 'object' || reserved === null || Object.values(reserved).some((purpose) => typeof purpose !== 'string'))
  ) {
    throw new ConfigurationError(
      `provider "${provider.name}": reservedToolNames must map each tool name to what it is for, like { final_output: 'structured output' }`,
    );
  }
  if (provider.modelSettingsProblem !== undefined && typeof provider.modelSettingsProblem !== 'function') {
    throw new ConfigurationError(`provider "${provider.name}": modelSettingsProblem must be a function of the settings`);
  }
  const attachments = provider.attachments;
  if (
    attachments !== undefined &&
    (typeof attachments !== 'object' || attachments === null || !Array.isArray(attachments.mediaTypes))
  ) {
    throw new ConfigurationError(
      `provider "${provider.name}": attachments must list its mediaTypes and limits (maxImageBytes, maxFileBytes, maxRequestBytes)`,
    );
  }
  const batch = provider.batch;
  if (
    batch !== undefined &&
    (typeof batch !== 'object' ||
      batch === null ||
      !['submit', 'check', 'result'].every((name) => typeof batch[name as 'submit'] === 'function'))
  ) {
    throw new ConfigurationError(`provider "${provider.name}": batch must have submit, check and result functions`);
  }
  return provider;
}
