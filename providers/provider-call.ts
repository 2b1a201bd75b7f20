import type { ModelSettings, ReasoningEffort } from '../core/agent-spec';
import type { Message, ModelResponse, Usage } from '../core/messages';
import type { AttachmentCapability } from './attachment-capability';
import type { BatchCapability } from './batch-capability';

/**
 * Whether the model may call the offered tools. `none` is for calls that must
 * answer in text (the closing reflection, a context summary) while the
 * conversation still holds tool calls the provider needs the definitions for.
 */
export type ToolChoice = 'auto' | 'none';

/** A tool as a provider offers it to the model: its name, what it is for, and a JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** What every provider receives for one model call: neutral messages and tool definitions. */
export interface ProviderRequest {
  model: string;
  messages: Message[];
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
  /**
   * The agent's model settings for this call, the run's overrides merged in (prepareRun): a provider reads those it
   * supports (`thinkingBudget` is Anthropic's, `reasoningEffort` OpenAI's) and ignores the rest.
   */
  modelSettings: ModelSettings;
  /** @deprecated The older shape, kept for providers written against it: read `modelSettings.maxOutputTokens`. */
  maxOutputTokens?: number;
  /** @deprecated The older shape, kept for providers written against it: read `modelSettings.temperature`. */
  temperature?: number;
  /** @deprecated The older shape, kept for providers written against it: read `modelSettings.thinkingBudget`. */
  thinkingBudget?: number;
  /** @deprecated The older shape, kept for providers written against it: read `modelSettings.reasoningEffort`. */
  reasoningEffort?: ReasoningEffort;
  /**
   * Set when the final answer must be JSON matching this schema (the agent's
   * outputSchema): providers use their native structured output. The answer
   * still comes back as the message's text; the model activity checks it.
   */
  output?: { schema: Record<string, unknown> };
  /**
   * The session this call belongs to (the run's workflow id), the same for every call of a conversation, across
   * continue-as-new: a provider whose prompt cache is routed by a key derives it from this (OpenAI's
   * `prompt_cache_key`). Set by the model activity; a call without it is cached by prefix alone.
   */
  sessionKey?: string;
}

/**
 * A request's settings, as `modelSettings` and one by one as providers of your own may read them from before
 * modelSettings existed. Only the settings of that time are copied: a newer one is in modelSettings alone.
 */
export function requestSettings(
  modelSettings: ModelSettings,
): Pick<ProviderRequest, 'modelSettings' | 'maxOutputTokens' | 'temperature' | 'thinkingBudget' | 'reasoningEffort'> {
  const { maxOutputTokens, temperature, thinkingBudget, reasoningEffort } = modelSettings;
  return { modelSettings, maxOutputTokens, temperature, thinkingBudget, reasoningEffort };
}

/** A request plus what only the worker has: its environment (API keys never travel through history), cancellation, the deadline. */
export interface ProviderCall extends ProviderRequest {
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  timeoutMs: number;
  /**
   * Report the tokens of a response as soon as it arrives, before converting it:
   * a response that then fails (no choices, say, and the call is retried) was
   * still paid for, and the cost budget counts every attempt.
   */
  onUsage?(usage: Usage): void;
  /**
   * Set when the run is watched as it is written: the provider calls its API in streaming mode and reports each
   * piece of the answer's text as it arrives, then returns the same whole response as without it. A provider that
   * cannot stream may ignore it (its text then arrives whole, with the reply).
   */
  onTextDelta?(text: string): void;
  /**
   * Set with onTextDelta: a provider that streams the model's readable thinking (Anthropic's `thinking_delta`) reports
   * each piece as it arrives, `thinkingSeparator` (core/stream-events.ts) between two blocks, so that the pieces add up
   * to the reply's thinking text. Redacted thinking is never reported. Others may ignore it.
   */
  onThinkingDelta?(text: string): void;
}

/**
 * A model provider: a value a worker registers, like a tool. `call` converts the
 * neutral request to the provider's wire format, calls it, and converts the
 * answer back; it throws the SDK's own errors (with `status` and `headers`), which
 * the model activity classifies once for every provider (408/409/429/5xx retried,
 * other 4xx not). Providers must not retry on their own: Temporal owns retries.
 */
export interface ModelProvider {
  /** The prefix of the `provider:model` ids it answers: lowercase words joined by dashes. */
  readonly name: string;
  /**
   * Tool names the provider itself offers the model, each with what it is for (Anthropic's `final_output`, its
   * structured output): no registered tool, agent or MCP tool may take one, on any worker that registers the provider.
   */
  readonly reservedToolNames?: Readonly<Record<string, string>>;
  /**
   * What this provider would refuse in an agent's model settings, in words (Anthropic: a temperature other than 1
   * while thinking), or undefined. Asked when an agent on one of its models is defined (built-in providers) and
   * registered, and when a run's settings override the agent's (prepareRun, and the CLI before it starts a run), so
   * such settings fail at start, not at the first model call.
   */
  modelSettingsProblem?(settings: ModelSettings): string | undefined;
  /**
   * Where this provider's calls go in this environment: its API's URL, or the base URL the environment sets
   * (OPENAI_BASE_URL). A failed call names its host (the host alone, never the path, query or credentials) in the
   * retry notice on the run's stream and in its failure. Optional: without it, the provider's name stands in.
   */
  endpoint?(env: NodeJS.ProcessEnv): string | undefined;
  /** Throws a ConfigurationError when the worker's environment lacks what the provider needs (an API key). */
  checkEnvironment?(env: NodeJS.ProcessEnv): void;
  /**
   * Loads what the first call needs (its SDK) ahead of it: a worker calls it while it starts, so the
   * first model call does not wait for module loading. Optional; a failure here is left to the call to report.
   */
  preload?(): Promise<void>;
  call(call: ProviderCall): Promise<ModelResponse>;
  /**
   * What its models take of a message's images and files (docs/attachments.md): types, sizes, which models take
   * images. Absent, it takes none, and a run that sends one is refused before the call. A provider that declares it
   * reads each user message's `attachments`, loaded with their bytes (providers/attachment-parts.ts).
   */
  readonly attachments?: AttachmentCapability;
  /** The provider's batch API, for runs in batch mode (`--batch`): absent, such runs on its models are refused at start. */
  readonly batch?: BatchCapability;
}
