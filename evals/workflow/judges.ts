import { resolveAgentInputWithoutZod } from '../../core/resolve-input-without-zod';
import type { BatchSettings } from '../../core/batch-settings';
import { judgeRunInput } from '../graders/judge-input';
import { judgeRunFailed, readJudgeVerdict } from '../graders/judge-verdict';
import type { CaseOutcome, EvalCase, GradeResult, GraderSpec } from '../../core/eval-types';
import { runChild } from './candidate-run';

type JudgeSpec = Extract<GraderSpec, { type: 'judge' }>;

/**
 * A judge's verdict on an outcome: a child run of the built-in eval-judge agent (evals/graders/), with an id that can
 * start only once, in batch mode when the eval is, and spending from the pair's allowance when there is a budget (a
 * spent allowance is a grade of 0 saying so, not a run). Its usage is the grade's: what judging cost.
 */
export async function judgeGrade(
  spec: JudgeSpec,
  evalCase: EvalCase,
  outcome: CaseOutcome,
  options: { workflowId: string; workspace: string; allowanceUsd?: number; batch?: BatchSettings },
): Promise<GradeResult> {
  if (options.allowanceUsd !== undefined && options.allowanceUsd <= 0)
    return { ...judgeRunFailed(spec, 'not run: the eval budget left nothing for this judge'), budgetCut: true };
  const resolved = resolveAgentInputWithoutZod({
    ...judgeRunInput(spec, evalCase, outcome, options.workspace),
    ...(options.allowanceUsd !== undefined && { maxCostUsd: options.allowanceUsd }),
    ...(options.batch && { batch: options.batch }),
  });
  if (!resolved.ok) return judgeRunFailed(spec, `invalid judge input: ${resolved.problems}`);
  const run = await runChild(options.workflowId, resolved.input, `eval judge of ${outcome.caseId} · ${outcome.candidate}`);
  if (!run.result) return { ...judgeRunFailed(spec, run.error ?? 'no result'), usage: run.usage };
  const verdict = readJudgeVerdict(run.result, spec);
  // Its allowance stopped the judge before its verdict: the budget's doing, not the answer's.
  return run.result.status === 'cost_budget' && options.allowanceUsd !== undefined ? { ...verdict, budgetCut: true } : verdict;
}
