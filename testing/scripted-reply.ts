import { ApplicationFailure } from '@temporalio/common';
import type { FinishReason, ModelResponse, ThinkingPart, ToolCall, Usage } from '../core/messages';

/** A reply a scripted model gives: its text, the tools it asks for, its thinking. Only `text` or `toolCalls` is needed. */
export interface ReplySpec {
  text?: string;
  /** Arguments given as an object are sent as JSON; a string is sent as it is (to test malformed arguments). */
  toolCalls?: Array<{ name: string; arguments?: unknown; id?: string }>;
  /** The model's reasoning before its answer, kept in the conversation as a thinking part. */
  thinking?: string;
  /** Default: `tool_calls` when the reply asks for tools, else `stop`. `length` or `refusal` test those endings. */
  finishReason?: FinishReason;
  /** Default: 10 input and 5 output tokens. */
  usage?: Partial<Usage>;
}

/** A model call that fails, as a provider's SDK would throw it: the model activity classifies it like any provider's. */
export class ScriptedFailure {
  constructor(
    readonly message: string,
    readonly status: number,
    readonly retryAfterMs?: number,
  ) {}

  /** The error a provider SDK throws: `status` and `headers`, which the model activity reads (activities/model/classify-error.ts). */
  toError(): Error {
    const headers = this.retryAfterMs === undefined ? {} : { 'retry-after-ms': String(this.retryAfterMs) };
    return Object.assign(new Error(this.message), { status: this.status, headers });
  }
}

/** A step of a script: text (the answer), a reply, or a failure. */
export type ScriptedReply = string | ReplySpec | ScriptedFailure;

/** Failures a scripted model can give instead of a reply. */
export const failure = {
  /** The provider is overloaded (HTTP 503, or 429 given): Temporal retries the call, and the next step answers it. */
  retryable(
    message = 'overloaded',
    options: { status?: 429 | 500 | 502 | 503 | 504; retryAfterMs?: number } = {},
  ): ScriptedFailure {
    return new ScriptedFailure(message, options.status ?? 503, options.retryAfterMs);
  },
  /** The provider rejects the request (HTTP 400, or the status given): not retried; a one-shot run fails, a session's turn fails. */
  rejected(message = 'invalid request', status: 400 | 401 | 403 | 404 | 422 = 400): ScriptedFailure {
    return new ScriptedFailure(message, status);
  },
};

const defaultUsage: Usage = { inputTokens: 10, outputTokens: 5 };

/** A reply in the neutral form every provider returns; `provider` and `model` mark its thinking as this model's. */
export function toModelResponse(
  reply: string | ReplySpec,
  source: { provider: string; model: string; nextCallId: () => string },
): ModelResponse {
  const spec: ReplySpec = typeof reply === 'string' ? { text: reply } : reply;
  if (typeof spec !== 'object' || spec === null)
    throw scriptError(`a scripted reply must be text or an object, not ${String(spec)}`);
  const toolCalls: ToolCall[] = (spec.toolCalls ?? []).map((call) => {
    if (typeof call?.name !== 'string' || !call.name) throw scriptError('each scripted tool call needs a name');
    const args =
      call.arguments === undefined ? '{}' : typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    return { id: call.id ?? source.nextCallId(), name: call.name, arguments: args };
  });
  const thinking: ThinkingPart[] =
    spec.thinking !== undefined
      ? [{ type: 'thinking', provider: source.provider, model: source.model, text: spec.thinking }]
      : [];
  return {
    message: { role: 'assistant', content: spec.text ?? '', toolCalls, ...(thinking.length > 0 && { thinking }) },
    finishReason: spec.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: { ...defaultUsage, ...spec.usage },
  };
}

/** A mistake in the test's script: never retried, so the test fails at once with it. */
export function scriptError(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'ScriptedModelError', message, nonRetryable: true });
}
