import type { AgentRegistry } from '../../agents/registry';
import type { CaseOutcome, EvalCase, GradeResult, GraderSpec } from '../../core/eval-types';
import type { Grader, GraderVerdict } from '../../agents/define-grader';
import { gradeBuiltIn, isBuiltInGrader } from './grade-built-in';
import { passOrFail } from './grade-result';
import { graderLabel } from './grader-label';

export interface GradeOutcomeInput {
  specs: GraderSpec[];
  evalCase: EvalCase;
  outcome: CaseOutcome;
}

const maxReasonChars = 2_000;

/**
 * The gradeOutcome activity, on every worker: grades one outcome with the built-in and custom specs, in their order,
 * leaving out the judge specs (each judge is a child run of its own: judgeRunInput, readJudgeVerdict). A custom grader
 * is the user's code: an unknown name, a throw, a rejected promise or a score outside 0..1 is a score of 0 with the
 * reason, for that grader only, and never fails the activity (an eval is not lost to one grader's bug; a retry would
 * not mend it either).
 */
export function createGradeOutcome(registry: AgentRegistry) {
  return async function gradeOutcome({ specs, evalCase, outcome }: GradeOutcomeInput): Promise<GradeResult[]> {
    const graded: GradeResult[] = [];
    for (const spec of specs) {
      if (spec.type === 'judge') continue;
      if (isBuiltInGrader(spec)) graded.push(safely(graderLabel(spec), () => gradeBuiltIn(spec, outcome, evalCase)));
      else graded.push(await gradeCustom(registry.graders.get(spec.name), spec, evalCase, outcome));
    }
    return graded;
  };
}

async function gradeCustom(
  grader: Grader | undefined,
  spec: Extract<GraderSpec, { type: 'custom' }>,
  evalCase: EvalCase,
  outcome: CaseOutcome,
): Promise<GradeResult> {
  const label = graderLabel(spec);
  if (!grader) return passOrFail(label, false, `no grader named "${spec.name}" is registered on this worker`);
  try {
    return verdictAsGrade(label, await grader.grade({ evalCase, outcome, options: spec.options ?? {} }));
  } catch (error) {
    return passOrFail(label, false, `the grader threw: ${errorMessage(error)}`);
  }
}

/** A custom grader's verdict, checked: it is the user's code, and its result goes into history and the report. */
function verdictAsGrade(label: string, verdict: GraderVerdict): GradeResult {
  const score = (verdict as Partial<GraderVerdict> | undefined)?.score;
  if (typeof score !== 'number' || !(score >= 0 && score <= 1))
    return passOrFail(label, false, `the grader returned score ${JSON.stringify(score)}; a score is a number from 0 to 1`);
  const reason = typeof verdict.reason === 'string' ? verdict.reason.slice(0, maxReasonChars) : '';
  return { grader: label, score, pass: typeof verdict.pass === 'boolean' ? verdict.pass : score >= 0.5, reason };
}

function safely(label: string, grade: () => GradeResult): GradeResult {
  try {
    return grade();
  } catch (error) {
    return passOrFail(label, false, `the grader threw: ${errorMessage(error)}`);
  }
}

function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, maxReasonChars);
}
