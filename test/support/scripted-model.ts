import type { ModelCallInput } from '../../activities';
import type { FinishReason, ModelResponse, ToolCall } from '../../agent/messages';

type ScriptStep = ModelResponse | ((input: ModelCallInput) => ModelResponse | Promise<ModelResponse>);

/**
 * The model at the activity boundary, for workflow tests: answers from a script
 * and records every request, so tests assert on what the model received.
 */
export class ScriptedModel {
  readonly requests: ModelCallInput[] = [];
  private readonly script: ScriptStep[];

  constructor(script: ScriptStep[]) {
    this.script = [...script];
  }

  callModel = async (input: ModelCallInput): Promise<ModelResponse> => {
    this.requests.push(structuredClone(input));
    const step = this.script.shift();
    if (!step) throw new Error(`scripted model has no answer for request ${this.requests.length}`);
    return typeof step === 'function' ? step(input) : step;
  };
}

export function answer(content: string, finishReason: FinishReason = 'stop'): ModelResponse {
  return { message: { role: 'assistant', content, toolCalls: [] }, finishReason, usage: { inputTokens: 10, outputTokens: 5 } };
}

let callCounter = 0;

/** A turn that asks for tools; arguments given as objects are sent as JSON, strings as they are (to script malformed JSON). */
export function callTools(...calls: Array<{ name: string; arguments: unknown; id?: string }>): ModelResponse {
  const toolCalls: ToolCall[] = calls.map((call) => ({
    id: call.id ?? `call_${++callCounter}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  return { message: { role: 'assistant', content: '', toolCalls }, finishReason: 'tool_calls', usage: { inputTokens: 20, outputTokens: 8 } };
}
