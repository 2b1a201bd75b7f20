import type { ModelResponse } from '../core/messages';

/** What the loop does after a model call: one discriminated step instead of nested flags. */
export type NextStep =
  | { kind: 'final_answer' }
  | { kind: 'run_tools' }
  | { kind: 'truncated' }
  | { kind: 'refused' }
  | { kind: 'empty' };

export function nextStep(response: ModelResponse): NextStep {
  switch (response.finishReason) {
    case 'length':
      // Output cut at the token limit: tool arguments may be cut too, so nothing is run.
      return { kind: 'truncated' };
    case 'content_filter':
    case 'refusal':
      return { kind: 'refused' };
    case 'stop':
    case 'tool_calls':
    case 'other':
      // Providers differ on the reason they give alongside tool calls; the calls themselves decide.
      if (response.message.toolCalls.length > 0) return { kind: 'run_tools' };
      return response.message.content.trim() ? { kind: 'final_answer' } : { kind: 'empty' };
    default: {
      const exhaustive: never = response.finishReason;
      throw new Error(`unknown finish reason ${String(exhaustive)}`);
    }
  }
}
