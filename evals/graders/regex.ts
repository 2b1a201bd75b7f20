import type { CaseOutcome, GradeResult } from '../../core/eval-types';
import { compileGraderPattern, MatchBudget } from './grader-pattern';
import { passOrFail } from './grade-result';

type RegexSpec = { type: 'regex'; pattern: string; flags?: string };

/** The answer matches the pattern somewhere, on RE2's linear-time engine within a bounded work (./grader-pattern.ts). */
export function gradeRegex(spec: RegexSpec, outcome: CaseOutcome, label: string): GradeResult {
  const compiled = compileGraderPattern(spec.pattern, spec.flags);
  if ('problem' in compiled) return passOrFail(label, false, compiled.problem);
  const matched = compiled.test(outcome.answer, new MatchBudget());
  if (matched === undefined)
    return passOrFail(
      label,
      false,
      `the answer (${outcome.answer.length} characters) is too long to match against this pattern within a grader's bound: simplify the pattern`,
    );
  return passOrFail(label, matched, matched ? 'the answer matches' : 'the answer does not match');
}
