import {
  ApplicationFailure,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import type { ResolvedAgentInput } from '../core/input';
import { zeroUsage, type Usage } from '../core/usage';
import type { AgentResult } from '../core/result';
import { agentWorkflowType } from './definitions';
import { childRunAttributes } from './child-run-attributes';
import { clip } from './summaries';

export interface SubagentOutcome {
  content: string;
  isError: boolean;
  /** Tokens the subagent spent (its own subagents' included): they count for the parent too. */
  usage: Usage;
}

/**
 * Runs a subagent as a child workflow (id `<parent id>/<tool call id>`, shown
 * under Relationships in the Web UI) and turns its outcome into a tool result:
 * its answer (or structured output) when it completed; an error result with the
 * reason when it ended another way or failed. Its spend comes back with it.
 * Cancelling the parent cancels the child, and waits for it to stop.
 */
export async function runSubagent(
  input: ResolvedAgentInput,
  request: { callId: string; agent: string; task: string; tokensLeft?: number; dollarsLeft?: number },
): Promise<SubagentOutcome> {
  const parent = workflowInfo().workflowId;
  const child: ResolvedAgentInput = {
    agent: request.agent,
    prompt: request.task,
    workspace: input.workspace,
    maxConcurrentTools: input.maxConcurrentTools,
    ...(input.maxToolCallsPerReply !== undefined && { maxToolCallsPerReply: input.maxToolCallsPerReply }),
    modelTimeoutSeconds: input.modelTimeoutSeconds,
    context: input.context,
    maxSubagentDepth: input.maxSubagentDepth,
    maxHandoffs: input.maxHandoffs,
    // An eval's subagent answers from the same fixtures and runs tools under the same rule, in the same scratch workspace.
    ...(input.evalTools && { evalTools: input.evalTools }),
    // The same approval rules; its requests surface here, and at the top-level run.
    ...(input.approval && { approval: input.approval }),
    ...(request.tokensLeft !== undefined && { maxSessionTokens: Math.max(1, request.tokensLeft) }),
    // What is left of the parent's cost budget is the child's: the child spends from the parent's money.
    ...(request.dollarsLeft !== undefined && { maxCostUsd: Math.max(Number.MIN_VALUE, request.dollarsLeft) }),
    subagent: { depth: (input.subagent?.depth ?? 0) + 1, parentWorkflowId: parent },
  };
  try {
    const result = await executeChild<(input: ResolvedAgentInput) => Promise<AgentResult>>(agentWorkflowType, {
      workflowId: `${parent}/${request.callId}`,
      args: [child],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      staticSummary: clip(`subagent ${request.agent}: ${request.task}`, 200),
      // The parent's owner and tenant: the child's approvals, policy and bounds are the same person's and tenant's.
      ...childRunAttributes(),
    });
    if (result.status === 'completed') {
      return {
        content: result.output !== undefined ? JSON.stringify(result.output) : result.answer,
        isError: false,
        usage: result.usage,
      };
    }
    const answer = result.answer ? `: ${result.answer}` : '';
    return {
      content: `Error: the subagent "${request.agent}" ended with status ${result.status}${answer}`,
      isError: true,
      usage: result.usage,
    };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ChildWorkflowFailure ? error.cause : error;
    return {
      content: `Error: the subagent "${request.agent}" failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      isError: true,
      usage: usageOf(cause),
    };
  }
}

/** A failed agent run reports what it spent in its failure's details (see agentWorkflow). */
function usageOf(failure: unknown): Usage {
  const details = failure instanceof ApplicationFailure ? (failure.details?.[0] as { usage?: Usage } | undefined) : undefined;
  return details?.usage ?? zeroUsage;
}
