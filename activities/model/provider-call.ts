import type { Message } from '../../agent/messages';
import type { Tool } from '../../tools';

/** What every provider adapter receives: neutral messages and tools, plus the worker's environment for keys. */
export interface ProviderCall {
  model: string;
  messages: Message[];
  tools: Tool[];
  maxOutputTokens?: number;
  /** Read from the worker's environment; API keys never travel through workflow history. */
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  timeoutMs: number;
}
