import { proxyActivities } from '@temporalio/workflow';
import type { BatchSettings } from '../../core/batch-settings';
import type { CaseOutcome, EvalCase, GradeResult, GraderSpec } from '../../core/eval-types';
import { judgeGrade } from './judges';
import type { EvalActivities } from './definitions';

// Custom graders are the user's code: a generous timeout, retried like a tool (a bug is not fixed by ten retries).
const { gradeOutcome } = proxyActivities<EvalActivities>({
  startToCloseTimeout: '5m',
  retry: { maximumAttempts: 3 },
  summary: 'grade outcome',
});

/**
 * Grades one outcome with the eval's graders and the case's own: the built-in and custom graders in one gradeOutcome
 * activity, each judge as a child run of the eval-judge agent (its model call is an activity like every model call).
 * Grades come back in the specs' order. `allowanceUsd` is what the judges may still spend, when there is a budget.
 */
export async function gradeOutcomeOf(
  specs: GraderSpec[],
  evalCase: EvalCase,
  outcome: CaseOutcome,
  options: { judgeId: (index: number) => string; workspace: string; allowanceUsd?: number; batch?: BatchSettings },
): Promise<GradeResult[]> {
  if (outcome.status === 'failed' || specs.length === 0) return [];
  const judges = specs.flatMap((spec, index) => (spec.type === 'judge' ? [{ spec, index }] : []));
  const others = specs.filter((spec) => spec.type !== 'judge');
  const graded = others.length > 0 ? await gradeOutcome({ specs: others, evalCase, outcome }) : [];
  const grades: GradeResult[] = [];
  let next = 0;
  let allowance = options.allowanceUsd;
  // Judges one after another: each spends from what the one before left of the pair's allowance.
  const judged = new Map<number, GradeResult>();
  for (const { spec, index } of judges) {
    const grade = await judgeGrade(spec as Extract<GraderSpec, { type: 'judge' }>, evalCase, outcome, {
      workflowId: options.judgeId(judges.findIndex((judge) => judge.index === index)),
      workspace: options.workspace,
      allowanceUsd: allowance,
      batch: options.batch,
    });
    if (allowance !== undefined) allowance -= grade.usage?.costUsd ?? 0;
    judged.set(index, grade);
  }
  specs.forEach((spec, index) => grades.push(spec.type === 'judge' ? judged.get(index)! : graded[next++]));
  return grades;
}
