import type { ModelSettings } from '../../core/agent-spec';
import { ConfigurationError } from '../../core/errors';
import { defineProvider } from '../define-provider';
import type { AttachmentCapability } from '../attachment-capability';
import { aiSdkAttachments } from '../built-in-attachments';
import type { ModelProvider } from '../provider-call';
import { callLanguageModel } from './call-language-model';
import {
  languageModelProblem,
  looksLikeLanguageModel,
  type AiSdkLanguageModel,
  type AiSdkModelFactory,
  type AiSdkModelSource,
} from './language-model';

export interface AiSdkProviderOptions {
  /**
   * What its models take of images and files: every type as a `file` part, up to 20 MB, unless given; `false` for a
   * package whose models take none (a run that sends one is then refused before the call).
   */
  attachments?: AttachmentCapability | false;
}

/**
 * Any AI SDK language model as a provider: `aiSdkProvider('google', google)` answers `google:<model>` with
 * `google('<model>')` (a package's provider value, or anything with `languageModel(id)`), and
 * `aiSdkProvider('flash', google('gemini-2.5-flash'))` answers `flash:gemini-2.5-flash` with that one model. Calls go
 * through the model activity like the built-in providers' (./call-language-model.ts). What the adapter cannot pass
 * on (a thinking budget, a prompt-cache setting) is refused at start; there is no batch mode.
 */
export function aiSdkProvider(name: string, source: AiSdkModelSource, options: AiSdkProviderOptions = {}): ModelProvider {
  const resolve = modelResolver(name, source);
  return defineProvider({
    name,
    ...(options.attachments !== false && { attachments: options.attachments ?? aiSdkAttachments }),
    modelSettingsProblem: aiSdkSettingsProblem,
    async call(call) {
      const model = resolve(call.model);
      if (model.specificationVersion === 'v3' && call.modelSettings.reasoningEffort !== undefined) {
        throw new ConfigurationError(
          `${name}:${call.model} implements the AI SDK's v3 specification, which has no reasoning effort: set it in the model's own provider options instead`,
        );
      }
      return callLanguageModel(model, call, { provider: name, model: call.model });
    },
  });
}

/** Settings no AI SDK model is given: said in words, so such an agent or run fails at start (ModelProvider.modelSettingsProblem). */
export function aiSdkSettingsProblem(settings: ModelSettings): string | undefined {
  if (settings.thinkingBudget !== undefined)
    return "modelSettings.thinkingBudget is for Anthropic models: for an AI SDK model use reasoningEffort, or the package's own thinking options";
  if (settings.promptCache !== undefined)
    return 'modelSettings.promptCache is not passed to AI SDK models: each package caches prompts its own way (its provider options)';
  return undefined;
}

function modelResolver(name: string, source: AiSdkModelSource): (modelId: string) => AiSdkLanguageModel {
  if (looksLikeLanguageModel(source)) {
    const problem = languageModelProblem(source, `aiSdkProvider('${name}', …)'s model`);
    if (problem) throw new ConfigurationError(problem);
    const model = source as AiSdkLanguageModel;
    return (modelId) => {
      if (modelId === model.modelId) return model;
      throw new ConfigurationError(
        `provider "${name}" was registered with the one model ${model.modelId}: name it ${name}:${model.modelId}, or register the package's provider (aiSdkProvider('${name}', google)) to reach any of its models`,
      );
    };
  }
  const factory = factoryOf(source);
  if (!factory) {
    throw new ConfigurationError(
      `aiSdkProvider('${name}', …) takes an AI SDK language model (google('gemini-2.5-flash')) or a package's provider (google, createMistral({ apiKey })); got ${describe(source)}`,
    );
  }
  const models = new Map<string, AiSdkLanguageModel>();
  return (modelId) => {
    const known = models.get(modelId);
    if (known) return known;
    const model: unknown = factory(modelId);
    const problem = languageModelProblem(model, `${name}:${modelId}`);
    if (problem) throw new ConfigurationError(problem);
    models.set(modelId, model as AiSdkLanguageModel);
    return model as AiSdkLanguageModel;
  };
}

function factoryOf(source: unknown): ((modelId: string) => unknown) | undefined {
  if (typeof source === 'function') return (modelId) => (source as (id: string) => unknown)(modelId);
  const languageModel = (source as { languageModel?: unknown } | null)?.languageModel;
  if (typeof source === 'object' && typeof languageModel === 'function')
    return (modelId) => (source as Exclude<AiSdkModelFactory, (id: string) => unknown>).languageModel(modelId);
  return undefined;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  return typeof value === 'object' ? `an object with ${Object.keys(value).slice(0, 5).join(', ') || 'no keys'}` : typeof value;
}
