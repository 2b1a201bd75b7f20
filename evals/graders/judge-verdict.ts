import type { AgentResult } from '../../core/result';
import type { GradeResult, GraderSpec } from '../../core/eval-types';
import { graderLabel } from './grader-label';

type JudgeSpec = Extract<GraderSpec, { type: 'judge' }>;

export const defaultJudgePassScore = 0.5;
const maxReasonChars = 2_000;

/**
 * The judge run's verdict as a grade: its structured output's score and reason, checked again here (the run already
 * checked them against the judge's outputSchema), never its text; passing at spec.passScore (default 0.5). A run
 * that gave no verdict (invalid output, a limit, a refusal) is a score of 0 saying so. The usage is what judging cost.
 */
export function readJudgeVerdict(result: AgentResult, spec: JudgeSpec): GradeResult {
  const grader = graderLabel(spec);
  const output = result.output as { score?: unknown; reason?: unknown } | undefined;
  const score = output?.score;
  if (result.status !== 'completed' || typeof score !== 'number' || !(score >= 0 && score <= 1)) {
    return {
      grader,
      score: 0,
      pass: false,
      reason: `the judge gave no verdict (its run ended ${result.status})`,
      usage: result.usage,
    };
  }
  const reason = typeof output?.reason === 'string' ? output.reason.slice(0, maxReasonChars) : '';
  return { grader, score, pass: score >= (spec.passScore ?? defaultJudgePassScore), reason, usage: result.usage };
}

/** The grade when the judge's run itself failed (a provider's refusal of the request, a cancelled run): 0, saying why. */
export function judgeRunFailed(spec: JudgeSpec, message: string): GradeResult {
  return {
    grader: graderLabel(spec),
    score: 0,
    pass: false,
    reason: `the judge's run failed: ${message.slice(0, maxReasonChars)}`,
  };
}
