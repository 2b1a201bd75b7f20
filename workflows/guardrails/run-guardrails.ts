import {
  ActivityFailure,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { ResolvedAgentInput } from '../../core/input';
import type { AgentResult } from '../../core/result';
import {
  failedClosed,
  readVerdict,
  type GuardedToolCall,
  type GuardrailSpec,
  type GuardrailStage,
  type TrippedGuardrail,
} from '../../core/guardrails';
import { addUsage, zeroUsage, type Usage } from '../../core/usage';
import type { CoreActivities } from '../../activities';
import { agentWorkflowType } from '../definitions';
import { clip } from '../summaries';

/** The text a stage's guardrails check, and where in the run it is (it names each model guardrail's child run). */
export interface GuardrailRequest {
  checks: GuardrailStage;
  text: string;
  /** The agent that has the conversation. */
  agent: string;
  steering?: boolean;
  output?: unknown;
  /** A tool-call guardrail: the call it checks. */
  toolCall?: GuardedToolCall;
  /** Unique in the run, readable: `t2.i3.output` (turn, iteration, stage). */
  at: string;
  /** What is left of the run's cost budget, if it has one: a model guardrail's child run spends from it. */
  dollarsLeft?: number;
}

/** What a stage's guardrails decided: the first of them (in the agent's order) that tripped, if one did; what they spent. */
export interface GuardrailOutcome {
  tripped?: TrippedGuardrail;
  /** Tokens the model guardrails' child runs spent: they count for the turn. */
  usage: Usage;
}

/** When an input guardrail runs: before the turn's first model call, or beside it (`runInParallel`). */
export type GuardrailTiming = 'before' | 'parallel';

/** The guardrails of a spec that check this stage (input guardrails: those of this timing, when one is given). */
export function guardrailsOf(
  specs: GuardrailSpec[] | undefined,
  stage: GuardrailStage,
  timing?: GuardrailTiming,
): GuardrailSpec[] {
  return (specs ?? []).filter(
    (spec) => spec.checks === stage && (timing === undefined || (spec.parallel === true) === (timing === 'parallel')),
  );
}

/**
 * Runs a stage's guardrails, all at once: a code guardrail as the `checkGuardrail` activity (retried as it says), a
 * model guardrail as a child run of its agent, whose structured output is the verdict. A guardrail that cannot decide
 * (its activity fails after its retries, its child run ends without a verdict) trips: guardrails fail closed.
 */
export async function runGuardrails(
  input: ResolvedAgentInput,
  guardrails: GuardrailSpec[],
  request: GuardrailRequest,
): Promise<GuardrailOutcome> {
  const verdicts = await Promise.all(
    guardrails.map((guardrail) =>
      guardrail.agent === undefined
        ? codeGuardrail(guardrail, request)
        : modelGuardrail(input, guardrail, guardrail.agent, request),
    ),
  );
  const usage = verdicts.reduce((sum, verdict) => addUsage(sum, verdict.usage), zeroUsage);
  const tripped = verdicts.find((verdict) => verdict.tripped)?.tripped;
  return { usage, ...(tripped && { tripped }) };
}

async function codeGuardrail(guardrail: GuardrailSpec, request: GuardrailRequest): Promise<GuardrailOutcome> {
  const { checkGuardrail } = proxyActivities<CoreActivities>({
    startToCloseTimeout: (guardrail.timeout ?? '30s') as Duration,
    retry: { maximumAttempts: guardrail.maximumAttempts ?? 3 },
    summary: `guardrail ${guardrail.name} (${request.checks})`,
  });
  try {
    const tripped = await checkGuardrail({
      guardrail: guardrail.name,
      agent: request.agent,
      checks: request.checks,
      text: request.text,
      ...(request.steering && { steering: true }),
      ...(request.output !== undefined && { output: request.output }),
      ...(request.toolCall && { toolCall: request.toolCall }),
    });
    return { usage: zeroUsage, ...(tripped && { tripped }) };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ActivityFailure ? error.cause : error;
    return { usage: zeroUsage, tripped: failedClosed(guardrail.name, messageOf(cause)) };
  }
}

async function modelGuardrail(
  input: ResolvedAgentInput,
  guardrail: GuardrailSpec,
  agent: string,
  request: GuardrailRequest,
): Promise<GuardrailOutcome> {
  const parent = workflowInfo().workflowId;
  // A run of its own, with the parent's workspace and limits; it may not start subagents of its own.
  const child: ResolvedAgentInput = {
    agent,
    prompt: request.text,
    workspace: input.workspace,
    maxConcurrentTools: input.maxConcurrentTools,
    modelTimeoutSeconds: input.modelTimeoutSeconds,
    context: input.context,
    maxSubagentDepth: 0,
    maxHandoffs: input.maxHandoffs,
    // An eval's run is judged in its scratch workspace, under the same rule for tools, as its subagents are.
    ...(input.evalTools && { evalTools: input.evalTools }),
    ...(request.dollarsLeft !== undefined && { maxCostUsd: Math.max(Number.MIN_VALUE, request.dollarsLeft) }),
  };
  try {
    const result = await executeChild<(input: ResolvedAgentInput) => Promise<AgentResult>>(agentWorkflowType, {
      workflowId: `${parent}/guardrail-${guardrail.name}-${request.at}`,
      args: [child],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      staticSummary: clip(`guardrail ${guardrail.name} (${request.checks}): ${request.text}`, 200),
    });
    if (result.status !== 'completed')
      return {
        usage: result.usage,
        tripped: failedClosed(guardrail.name, `its agent "${agent}" ended with status ${result.status}`),
      };
    return { usage: result.usage, ...spread(readVerdict(guardrail.name, result.output)) };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ChildWorkflowFailure ? error.cause : error;
    return { usage: zeroUsage, tripped: failedClosed(guardrail.name, messageOf(cause)) };
  }
}

function spread(tripped: TrippedGuardrail | undefined): { tripped?: TrippedGuardrail } {
  return tripped ? { tripped } : {};
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
