import { z } from 'zod';
import type { ModelResponse } from '../../core/messages';

/**
 * Checks a final answer against an agent's outputSchema: the parsed value when
 * it matches, or what is wrong, in words the model can act on. A reply that
 * still asks for tools is not a final answer and is not checked.
 */
export function checkOutput(schema: z.ZodType, response: ModelResponse): { output?: unknown; outputProblem?: string } {
  if (response.message.toolCalls.length > 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(withoutCodeFence(response.message.content));
  } catch (error) {
    return { outputProblem: `the answer is not JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? { output: parsed.data } : { outputProblem: z.prettifyError(parsed.error) };
}

// Models often wrap JSON in a Markdown code fence even when asked not to.
function withoutCodeFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return fenced ? fenced[1] : text;
}
