import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import { failureTypes } from '../../core/errors';
import type { EvalEvent } from '../../core/stream-events';
import { AgentStream } from '../../workflows/agent-stream';
import { declareVersioningBehavior } from '../../workflows/versioning';
import type { CutPair, EvalReport } from '../../core/eval-types';
import { candidateInput, outcomeOf, recordedOutcome, runChild } from './candidate-run';
import type { EvalActivities, EvalWorkflowInput, ScoredOutcome } from './definitions';
import { EvalBudget } from './eval-budget';
import { gradeOutcomeOf } from './grading';
import { childWorkflowId, judgeWorkflowId, pairKey, pairsOf, type Pair } from './pairs';
import { buildReport, pairSpendUsd, scored } from './scores';

const scratch = proxyActivities<EvalActivities>({ startToCloseTimeout: '10m', retry: { maximumAttempts: 5 } });

/**
 * The durable eval: every case answered by every candidate as a child agent run, at most `concurrency` at a time, each
 * with an id made of the eval's, the case's and the candidate's (a replay after a killed worker finds the runs it
 * started; none runs twice), a scratch workspace, and the case's recorded tool results; then graded (the judges as
 * child runs too). The recorded baseline is graded like a candidate and never run again. Progress is published on the
 * eval's own stream (core/stream-events.ts), so `agent watch <eval id>` follows it like any run.
 *
 * History stays bounded: once Temporal suggests it (about 4,096 events), or after `pairsPerRun` pairs, the eval stops
 * starting pairs, lets those in flight finish, and continues as new carrying the scored outcomes (a large carry goes
 * to external storage like any payload over 256 KB).
 */
export async function evalWorkflow(input: EvalWorkflowInput): Promise<EvalReport> {
  checkInput(input);
  const evalId = workflowInfo().workflowId;
  const carried = input.carried;
  // Its own events only (EvalEvent): each child run tells its story on its own stream, which this one does not relay.
  const stream = new AgentStream<EvalEvent>(carried?.stream);
  const budget = new EvalBudget(input.budgetUsd, carried?.spentUsd ?? 0, carried?.worstPairUsd ?? 0);
  const outcomes: ScoredOutcome[] = [...(carried?.outcomes ?? [])];
  const cut: CutPair[] = [...(carried?.cut ?? [])];
  const done = new Set([
    ...outcomes.map((outcome) => pairKey(outcome.caseId, outcome.candidate, outcome.repeat)),
    ...cut.map((pair) => pairKey(pair.case, pair.candidate, pair.repeat)),
  ]);
  const pending = pairsOf(input.cases, input.candidates, input.repeat).filter((pair) => !done.has(pair.key));

  let next = 0;
  let inFlight = 0;
  let finishedThisRun = 0;
  let stoppedByBudget = false as boolean;
  let handOver = false as boolean;
  const handOverDue = () =>
    workflowInfo().continueAsNewSuggested ||
    stream.continueAsNewDue() ||
    (input.pairsPerRun !== undefined && finishedThisRun + inFlight >= input.pairsPerRun);

  const runPair = async (pair: Pair, allowanceUsd: number | undefined): Promise<void> => {
    const workflowId = pair.candidate ? childWorkflowId(evalId, pair.evalCase.id, pair.name, pair.repeat) : '';
    const repeat = pair.candidate && (input.repeat ?? 1) > 1 ? { repeat: pair.repeat } : {};
    stream.publish({ type: 'eval_pair_start', case: pair.evalCase.id, candidate: pair.name, workflowId });
    const outcome = { ...(await answer(pair, workflowId, input, allowanceUsd)), ...repeat };
    // A run its allowance stopped (status cost_budget, only with a budget) has no whole answer to grade: not scored.
    const runCut = allowanceUsd !== undefined && outcome.status === 'cost_budget';
    const grades = runCut
      ? []
      : await gradeOutcomeOf([...input.graders, ...(pair.evalCase.graders ?? [])], pair.evalCase, outcome, {
          judgeId: (index) => judgeWorkflowId(evalId, pair.evalCase.id, pair.name, index, pair.repeat),
          workspace: input.workspace,
          allowanceUsd: allowanceUsd !== undefined ? allowanceUsd - (outcome.usage.costUsd ?? 0) : undefined,
          batch: input.batch,
        });
    const result = scored(outcome, grades);
    const spent = pairSpendUsd(result);
    budget.settle(allowanceUsd, spent);
    const wasCut = runCut || grades.some((grade) => grade.budgetCut);
    if (wasCut) cut.push({ case: pair.evalCase.id, candidate: pair.name, ...repeat, costUsd: spent });
    else outcomes.push(result);
    // A pair its allowance stopped (the worst case of its next model call, priced by the worker, did not fit): what is
    // left would stop the next pairs the same way, so no more pairs start.
    if (wasCut) stoppedByBudget = true;
    stream.publish({
      type: 'eval_pair_end',
      case: pair.evalCase.id,
      candidate: pair.name,
      status: wasCut ? 'cost_budget' : result.status,
      score: wasCut ? 0 : result.score,
      pass: wasCut ? false : result.pass,
      costUsd: spent,
      ...(wasCut
        ? { error: 'not run: the eval budget stopped it; not scored' }
        : result.error !== undefined && { error: result.error }),
    });
  };

  // One loop per slot: each takes the next pair while the budget and the history allow.
  const slot = async (): Promise<void> => {
    while (next < pending.length && !stoppedByBudget) {
      if (handOverDue()) {
        handOver = true;
        return;
      }
      const pair = pending[next];
      // The recorded baseline is not run: only its judges spend, from what is left.
      const allowance = budget.allowance(input.concurrency - inFlight);
      if (allowance === 'stop') {
        stoppedByBudget = true;
        return;
      }
      next++;
      inFlight++;
      try {
        await runPair(pair, allowance);
      } finally {
        inFlight--;
        finishedThisRun++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, pending.length)) }, slot));

  if (handOver && !stoppedByBudget && next < pending.length) {
    stream.detach();
    await condition(allHandlersFinished);
    return continueAsNew<typeof evalWorkflow>({
      ...input,
      carried: {
        version: 1,
        outcomes,
        cut,
        spentUsd: budget.spentUsd,
        worstPairUsd: budget.worstPairUsd,
        stream: stream.carry(),
      },
    });
  }

  const notRun = [...new Set([...cut.map((pair) => pair.case), ...pending.slice(next).map((pair) => pair.evalCase.id)])];
  stream.publish({
    type: 'eval_end',
    pairs: outcomes.length,
    notRun: pending.length - next + cut.length,
    ...(stoppedByBudget && { stopped: 'budget' as const }),
  });
  stream.detach();
  await condition(allHandlersFinished);
  return buildReport({
    evalId,
    startedAt: input.startedAt,
    cases: input.cases,
    candidates: input.candidates.map((candidate) => candidate.candidate.name),
    repeat: input.repeat ?? 1,
    outcomes,
    cut,
    notRun,
  });
}

// Under Worker Versioning an eval is pinned like a one-shot run: it finishes on the build that started it.
declareVersioningBehavior(evalWorkflow);

/** A candidate's answer, from its child run in a scratch workspace; or the recording's own, for the baseline. */
async function answer(pair: Pair, workflowId: string, input: EvalWorkflowInput, allowanceUsd: number | undefined) {
  const ids = { caseId: pair.evalCase.id, candidate: pair.name, workflowId };
  if (!pair.candidate) return recordedOutcome(pair.evalCase, pair.name);
  const workspace = input.unrecordedTools === 'scratch' ? await scratchCopy(input.workspace, workflowId) : input.workspace;
  try {
    const child = candidateInput(pair.candidate, pair.evalCase, {
      workspace,
      maxCostUsd: allowanceUsd,
      batch: input.batch,
      unrecordedTools: input.unrecordedTools,
    });
    const run = await runChild(workflowId, child, `eval case ${pair.evalCase.id} · ${pair.name}`);
    return outcomeOf(ids, run);
  } finally {
    if (input.unrecordedTools === 'scratch') await scratch.removeScratchWorkspace({ path: workspace });
  }
}

/**
 * The pair's scratch copy of the workspace. A copy refused (a workspace past the copy's limits, outside the root) fails
 * the eval with the activity's own reason, not the "Activity task failed" that wraps it: every pair would fail alike.
 */
async function scratchCopy(workspace: string, key: string): Promise<string> {
  try {
    return (await scratch.makeScratchWorkspace({ workspace, key })).path;
  } catch (error) {
    if (!(error instanceof ActivityFailure) || !(error.cause instanceof ApplicationFailure)) throw error;
    throw ApplicationFailure.create({
      type: error.cause.type ?? failureTypes.configuration,
      message: `no scratch copy of the workspace: ${error.cause.message}`,
      nonRetryable: true,
    });
  }
}

function checkInput(input: EvalWorkflowInput): void {
  const problem =
    !Array.isArray(input?.cases) || !Array.isArray(input.candidates)
      ? 'an eval needs cases and candidates'
      : !Number.isInteger(input.concurrency) || input.concurrency < 1
        ? 'concurrency must be a whole number of at least 1'
        : input.budgetUsd !== undefined && !(input.budgetUsd > 0)
          ? 'budgetUsd must be more than 0'
          : input.repeat !== undefined && (!Number.isInteger(input.repeat) || input.repeat < 1)
            ? 'repeat must be a whole number of at least 1'
            : undefined;
  if (problem)
    throw ApplicationFailure.create({
      type: failureTypes.invalidInput,
      message: `invalid eval input: ${problem}`,
      nonRetryable: true,
    });
}
