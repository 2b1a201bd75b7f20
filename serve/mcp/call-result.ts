import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentResult } from '../../core/result';
import { runMetaKey } from './agent-tools';
import { isRecord } from '../../core/is-record';

/**
 * A run's result as an MCP tool result. The answer is the first content item, exactly as the model wrote it: the SDK
 * serialises it as one JSON string, so no text of the model's can become a protocol message or another call's result.
 * What the engine says about the run (its id, its status) is never mixed into that text: it is in `_meta`, and a run
 * that did not complete says so in a content item of its own, with `isError`. Structured output goes in
 * `structuredContent` when the tool declared an outputSchema (hasObjectOutput) and the run completed with one.
 */
export function runToolResult(workflowId: string, result: AgentResult, structured: boolean): CallToolResult {
  const completed = result.status === 'completed';
  const { guardrail } = result;
  const meta = { [runMetaKey]: { workflowId, status: result.status, agent: result.agent, ...(guardrail && { guardrail }) } };
  const content: CallToolResult['content'] = [{ type: 'text', text: result.answer }];
  // A guardrail's reason is what the caller needs to know of a turn it stopped (docs/guardrails.md).
  const why = guardrail ? ` (guardrail "${guardrail.name}": ${guardrail.reason})` : '';
  if (!completed) content.push({ type: 'text', text: `[the run ${workflowId} ended with status ${result.status}${why}]` });
  const output = completed && structured && isRecord(result.output) ? { structuredContent: result.output } : {};
  return { content, ...output, ...(!completed && { isError: true }), _meta: meta };
}

/** A run that failed (or was cancelled or terminated): the reason, as an error result naming the run. */
export function failedToolResult(workflowId: string, message: string): CallToolResult {
  return {
    content: [{ type: 'text', text: `[the run ${workflowId} failed: ${message}]` }],
    isError: true,
    _meta: { [runMetaKey]: { workflowId, status: 'failed' } },
  };
}
