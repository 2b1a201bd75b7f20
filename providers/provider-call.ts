import type { Message } from '../core/messages';
import type { Tool } from '../tools';

/**
 * Whether the model may call the offered tools. `none` is for calls that must
 * answer in text (the closing reflection, a context summary) while the
 * conversation still holds tool calls the provider needs the definitions for.
 */
export type ToolChoice = 'auto' | 'none';

/** What every provider adapter receives: neutral messages and tools, plus the worker's environment for keys. */
export interface ProviderCall {
  model: string;
  messages: Message[];
  tools: Tool[];
  toolChoice: ToolChoice;
  maxOutputTokens?: number;
  /** Read from the worker's environment; API keys never travel through workflow history. */
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  timeoutMs: number;
}

/** The part of a call that decides the request body: what each provider's `prepare` step turns into its wire format. */
export type ProviderRequest = Pick<ProviderCall, 'model' | 'messages' | 'tools' | 'toolChoice' | 'maxOutputTokens'>;
