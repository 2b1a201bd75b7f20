import type { ModelCallInput, ModelCallResult } from '../../activities';
import { MemoryTranscriptStore } from '../../storage/transcript/transcript-store';
import { withTranscript } from '../../activities/model/with-transcript';
import type { FinishReason, Message, ModelResponse, ToolCall } from '../../core/messages';

/** A request as the model saw it: the activity input, plus the whole context it was shown and the tools it may call. */
export interface ScriptedRequest extends ModelCallInput {
  messages: Message[];
  /** The tools the model may call: none when the call must answer in text (toolChoice none). */
  offeredTools: string[];
}

type ScriptStep = ModelResponse | ((request: ScriptedRequest) => ModelResponse | Promise<ModelResponse>);

/**
 * The model at the activity boundary, for workflow tests: answers from a script
 * and records every request, so tests assert on what the model received. It
 * keeps transcripts the way the real model activity does.
 */
export class ScriptedModel {
  readonly requests: ScriptedRequest[] = [];
  /** Replace it to simulate a worker whose transcript store lost everything. */
  transcripts = new MemoryTranscriptStore();
  private readonly script: ScriptStep[];

  constructor(script: ScriptStep[]) {
    this.script = [...script];
  }

  /**
   * A model whose answers depend on the agent asking, each agent with a script
   * of its own, for runs with subagents, whose calls interleave.
   */
  static byAgent(scripts: Record<string, ScriptStep[]>): ScriptedModel {
    const queues = Object.fromEntries(Object.entries(scripts).map(([agent, steps]) => [agent, [...steps]]));
    return new ScriptedModel([
      ...Array.from({ length: 1000 }, () => (request: ScriptedRequest) => {
        const step = queues[request.agent ?? '']?.shift();
        if (!step) throw new Error(`scripted model has no answer for agent ${request.agent}`);
        return typeof step === 'function' ? step(request) : step;
      }),
    ]);
  }

  callModel = async (input: ModelCallInput): Promise<ModelCallResult> =>
    withTranscript(this.transcripts, input, async ({ messages, tools, toolChoice }) => {
      const offeredTools = toolChoice === 'none' ? [] : tools;
      const request: ScriptedRequest = { ...structuredClone(input), messages: structuredClone(messages), offeredTools };
      this.requests.push(request);
      const step = this.script.shift();
      if (!step) throw new Error(`scripted model has no answer for request ${this.requests.length}`);
      return typeof step === 'function' ? step(request) : step;
    });
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
  return {
    message: { role: 'assistant', content: '', toolCalls },
    finishReason: 'tool_calls',
    usage: { inputTokens: 20, outputTokens: 8 },
  };
}
