import type { ModelCallResult } from '../activities';
import type { RoundRequest } from './tool-round';

/** What the loop does after a model call: one discriminated step, carrying what that step needs. */
export type NextStep =
  /** An answer without tool calls; with the parsed output (or what was wrong with it) when the agent has an outputSchema. */
  | { kind: 'final_answer'; answer: string; output?: unknown; outputProblem?: string }
  | { kind: 'run_tools'; round: RoundRequest; text: string }
  | { kind: 'truncated'; answer: string }
  | { kind: 'refused'; answer: string }
  | { kind: 'empty' };

export function nextStep(response: ModelCallResult): NextStep {
  const { content, toolCalls } = response.message;
  switch (response.finishReason) {
    case 'length':
      // Output cut at the token limit: tool arguments may be cut too, so nothing is run.
      return { kind: 'truncated', answer: content };
    case 'content_filter':
    case 'refusal':
      return { kind: 'refused', answer: content };
    case 'stop':
    case 'tool_calls':
    case 'other':
      // Providers differ on the reason they give alongside tool calls; the calls themselves decide.
      if (toolCalls.length > 0) {
        const round = {
          calls: toolCalls,
          needsApproval: response.needsApproval ?? [],
          descriptions: response.approvalDescriptions,
        };
        return { kind: 'run_tools', round, text: content };
      }
      if (!content.trim()) return { kind: 'empty' };
      return { kind: 'final_answer', answer: content, output: response.output, outputProblem: response.outputProblem };
    default: {
      const exhaustive: never = response.finishReason;
      throw new Error(`unknown finish reason ${String(exhaustive)}`);
    }
  }
}
