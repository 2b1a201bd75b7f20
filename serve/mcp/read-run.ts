import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { failureMessage } from '../../client/failure-message';
import { isOwnedBy } from '../http/run-owner';
import { agentWorkflowType } from '../../workflows/definitions';
import { leavingWhen, runResult, type RunContext } from './agent-call';
import { failedToolResult, runToolResult } from './call-result';

/**
 * `agent_result {runId}`: the answer of a run the caller started through an agent tool, waited for while the run
 * works. Only the run's owner may read it (serve/http/run-owner.ts, checked against the server now); to anyone else, and
 * for an id that names no run, it does not exist, in the same words, so ids cannot be probed. Cancelling this call
 * stops waiting and leaves the run alone.
 */
export async function readRun(
  context: RunContext,
  runId: string,
  structured: (agent: string) => boolean,
  /** The call's signal, and whether the client was gone when it aborted. */
  signal: AbortSignal,
  gone: () => boolean,
): Promise<CallToolResult> {
  const handle = context.client.workflow.getHandle(runId);
  if (!(await isOwnedBy(context.client, runId, context.principal)) || !(await isAgentRun(context, runId))) {
    return { content: [{ type: 'text', text: `no run ${runId} that you can read` }], isError: true };
  }
  const outcome = await Promise.race([runResult(handle, context.log), leavingWhen(signal, gone)]);
  if ('left' in outcome) return failedToolResult(runId, 'no longer waited for');
  if ('error' in outcome) return failedToolResult(runId, failureMessage(outcome.error));
  return runToolResult(runId, outcome.result, structured(outcome.result.agent));
}

async function isAgentRun(context: RunContext, runId: string): Promise<boolean> {
  const description = await context.client.workflow.getHandle(runId).describe();
  return description.type === agentWorkflowType;
}
