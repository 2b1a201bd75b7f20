import type { CaseOutcome, EvalCase, GradeResult, GraderSpec } from '../../core/eval-types';
import { gradeBounds } from './bounds';
import { gradeContains } from './contains';
import { gradeEquals } from './equals';
import { passOrFail } from './grade-result';
import { graderLabel } from './grader-label';
import { gradeOutputSchema } from './output-schema';
import { gradeRegex } from './regex';
import { gradeToolCalls } from './tool-calls';

/** The graders gradeBuiltIn knows: all but the judge (a child run) and custom graders (the user's code, an activity). */
export type BuiltInGraderSpec = Exclude<GraderSpec, { type: 'judge' } | { type: 'custom' }>;

export function isBuiltInGrader(spec: GraderSpec): spec is BuiltInGraderSpec {
  return spec.type !== 'judge' && spec.type !== 'custom';
}

/**
 * Scores one outcome with one built-in grader. Pure and deterministic (no I/O, no clock, no randomness), so workflow
 * code may call it. The specs must have passed checkGraderSpecs. A run that failed fails every grader: it gave no
 * answer to judge.
 */
export function gradeBuiltIn(spec: GraderSpec, outcome: CaseOutcome, _evalCase?: EvalCase): GradeResult {
  const label = graderLabel(spec);
  if (!isBuiltInGrader(spec))
    return passOrFail(label, false, `a ${spec.type} grader is not built in: gradeOutcome or the judge run grades it`);
  if (outcome.status === 'failed') return passOrFail(label, false, `the run failed${outcome.error ? `: ${outcome.error}` : ''}`);
  switch (spec.type) {
    case 'equals':
      return gradeEquals(spec, outcome, label);
    case 'contains':
      return gradeContains(spec, outcome, label);
    case 'regex':
      return gradeRegex(spec, outcome, label);
    case 'output-schema':
      return gradeOutputSchema(spec, outcome, label);
    case 'tool-calls':
      return gradeToolCalls(spec, outcome, label);
    case 'bounds':
      return gradeBounds(spec, outcome, label);
    default: {
      const _exhaustive: never = spec;
      return passOrFail(label, false, `not a built-in grader: ${JSON.stringify(_exhaustive)}`);
    }
  }
}
