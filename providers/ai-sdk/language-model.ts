/**
 * The part of the AI SDK's language model specification (`@ai-sdk/provider`, versions v3 and v4) this adapter uses,
 * written out here so that the library's types do not depend on that package: a value of `LanguageModelV3` or
 * `LanguageModelV4` from any `@ai-sdk/*` package fits it (test/unit/ai-sdk-provider.test.ts checks both).
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: 'v3' | 'v4';
  /** The AI SDK's own name of the API, `google.generative-ai`, `mistral.chat`. */
  readonly provider: string;
  readonly modelId: string;
  // The call options and stream parts are checked where they are built and read (./call-language-model.ts).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each spec version declares its own option types
  doStream(options: any): PromiseLike<{ stream: ReadableStream<any> }>;
}

/** A package's provider value (`google`, `createMistral(...)`): a function of the model id, or an object with `languageModel(id)`. */
export type AiSdkModelFactory =
  ((modelId: string) => AiSdkLanguageModel) | { languageModel(modelId: string): AiSdkLanguageModel };

/** What the adapter can be given: one model, or a provider that makes a model from the id after `name:`. */
export type AiSdkModelSource = AiSdkLanguageModel | AiSdkModelFactory;

const supportedVersions = new Set(['v3', 'v4']);

/** Whether a value looks like an AI SDK language model of any specification version (v2 included, to be refused in words). */
export function looksLikeLanguageModel(
  value: unknown,
): value is { specificationVersion: string; provider: unknown; modelId: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { specificationVersion?: unknown }).specificationVersion === 'string' &&
    typeof (value as { doStream?: unknown }).doStream === 'function'
  );
}

/** The model, checked: a value of a specification version this adapter speaks, or a ConfigurationError's words. */
export function languageModelProblem(value: unknown, what: string): string | undefined {
  if (!looksLikeLanguageModel(value)) {
    return `${what} is not an AI SDK language model (a value with specificationVersion and doStream, like google('gemini-2.5-flash'))`;
  }
  if (!supportedVersions.has(value.specificationVersion)) {
    return `${what} implements the AI SDK's language model specification ${value.specificationVersion}; durable-agent speaks v3 and v4 (AI SDK 6 and 7 packages): upgrade the @ai-sdk package`;
  }
  return undefined;
}
