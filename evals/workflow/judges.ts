import type { BatchSettings } from '../../core/batch-settings';
import type { CaseOutcome, EvalCase, GradeResult, GraderSpec } from '../types';

type JudgeSpec = Extract<GraderSpec, { type: 'judge' }>;

/**
 * A judge's verdict on an outcome: a child run of the built-in eval-judge agent (evals/graders/), with an id that can
 * start only once. Until evals/graders/ brings the judge, a judge grade says it was not judged.
 */
export async function judgeGrade(
  spec: JudgeSpec,
  _evalCase: EvalCase,
  _outcome: CaseOutcome,
  _options: { workflowId: string; allowanceUsd?: number; batch?: BatchSettings },
): Promise<GradeResult> {
  return { grader: `judge: ${spec.rubric.slice(0, 40)}`, score: 0, pass: false, reason: 'not judged: no judge on this build' };
}
