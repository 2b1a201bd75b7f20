import type { ModelResponse } from '../core/messages';

/** What a model call span records before the call (the GenAI semantic conventions' request attributes). */
export interface ModelCallSpan {
  /** The provider's registered name (`openai`, `anthropic`, or one of your own). */
  provider: string;
  /** The model as the provider is asked for it (`gpt-4o-mini`). */
  model: string;
  /** The agent whose conversation this is. */
  agent?: string;
  /** The workflow id of the run: the conversation the call belongs to. */
  conversationId?: string;
  maxOutputTokens?: number;
  temperature?: number;
  /** `json` when the agent's outputSchema is asked for natively. */
  outputType?: 'json';
}

/** What a tool call span records (the GenAI semantic conventions' execute_tool attributes). */
export interface ToolCallSpan {
  tool: string;
  /** The id the model gave the call. */
  callId?: string;
  description?: string;
}

/**
 * Spans around the model calls and tool calls inside the activities. With
 * tracing off these are `untracedSpans`: the call runs as it is, and no
 * OpenTelemetry code is loaded.
 */
export interface AgentSpans {
  modelCall<T extends ModelResponse>(span: ModelCallSpan, call: () => Promise<T>): Promise<T>;
  toolCall<T>(span: ToolCallSpan, call: () => Promise<T>): Promise<T>;
}

export const untracedSpans: AgentSpans = {
  modelCall: (_span, call) => call(),
  toolCall: (_span, call) => call(),
};
