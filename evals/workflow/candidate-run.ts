import {
  ApplicationFailure,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { BatchSettings } from '../../core/batch-settings';
import type { ResolvedAgentInput } from '../../core/input';
import type { AgentResult } from '../../core/result';
import { zeroUsage, type Usage } from '../../core/usage';
import { agentWorkflowType } from '../../workflows/definitions';
import { clip } from '../../workflows/summaries';
import type { CaseOutcome, EvalCase, UnrecordedToolPolicy } from '../../core/eval-types';
import type { CandidateRun } from './definitions';

/**
 * A candidate's child run on a case: the candidate's settings (its tools, or the recording's when it names none),
 * the case's recorded conversation as context and its prompt to answer, a scratch workspace, the case's tool fixtures
 * (evalTools, evals/cases/), and the result carrying its tool calls (reportToolCalls). One-shot: in batch mode every
 * model call goes through the batch API.
 */
export function candidateInput(
  candidate: CandidateRun,
  evalCase: EvalCase,
  options: { workspace: string; maxCostUsd?: number; batch?: BatchSettings; unrecordedTools: UnrecordedToolPolicy },
): ResolvedAgentInput {
  return {
    ...candidate.input,
    // A candidate that names no tools is offered the recording's, as the recording was (not its agent's default).
    ...(candidate.candidate.tools === undefined && evalCase.tools !== undefined && { tools: evalCase.tools }),
    ...(evalCase.context.length > 0 && { messages: evalCase.context }),
    prompt: evalCase.prompt,
    workspace: options.workspace,
    ...(options.maxCostUsd !== undefined && { maxCostUsd: positive(options.maxCostUsd) }),
    ...(options.batch && { batch: options.batch }),
    // An eval waits for no person: its runs approve nothing and never stop to ask (tools are confined anyway).
    approval: { tools: [], skip: true, timeoutSeconds: candidate.input.approval?.timeoutSeconds ?? 3600 },
    reportToolCalls: true,
    evalTools: { fixtures: evalCase.toolFixtures, unrecorded: options.unrecordedTools },
  };
}

/** A money allowance is more than 0 (the input refuses 0): a spent one still stops the run before its first call. */
function positive(usd: number): number {
  return Math.max(Number.MIN_VALUE, usd);
}

/**
 * Runs an agent child with an id that can start only once (REJECT_DUPLICATE), and reads its outcome: its answer,
 * status, tool calls and spend, or why it failed (with what it spent, from its failure's details).
 */
export async function runChild(
  workflowId: string,
  input: ResolvedAgentInput,
  summary: string,
): Promise<{ result?: AgentResult; error?: string; usage: Usage }> {
  try {
    const result = await executeChild<(input: ResolvedAgentInput) => Promise<AgentResult>>(agentWorkflowType, {
      workflowId,
      args: [input],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: clip(summary, 200),
    });
    return { result, usage: result.usage };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ChildWorkflowFailure && error.cause ? error.cause : error;
    return { error: cause instanceof Error ? cause.message : String(cause), usage: usageOf(cause) };
  }
}

export function outcomeOf(
  ids: { caseId: string; candidate: string; workflowId: string },
  run: { result?: AgentResult; error?: string; usage: Usage },
): CaseOutcome {
  const { result } = run;
  if (!result) {
    return { ...ids, answer: '', status: 'failed', toolCalls: [], usage: run.usage, iterations: 0, error: run.error };
  }
  return {
    ...ids,
    answer: result.answer,
    status: result.status,
    ...(result.output !== undefined && { output: result.output }),
    toolCalls: result.toolCalls ?? [],
    usage: result.usage,
    iterations: result.iterations,
  };
}

/** The recorded baseline as an outcome: what the recording answered, never run again. */
export function recordedOutcome(evalCase: EvalCase, name: string): CaseOutcome {
  const recorded = evalCase.recorded!;
  return {
    caseId: evalCase.id,
    candidate: name,
    workflowId: '',
    answer: recorded.answer,
    status: 'completed',
    toolCalls: recorded.toolCalls,
    usage: recorded.usage ?? zeroUsage,
    iterations: recorded.iterations ?? 0,
  };
}

/** A failed agent run reports what it spent in its failure's details (workflows/agent-run.ts). */
function usageOf(failure: unknown): Usage {
  const details = failure instanceof ApplicationFailure ? (failure.details?.[0] as { usage?: Usage } | undefined) : undefined;
  return details?.usage ?? zeroUsage;
}
