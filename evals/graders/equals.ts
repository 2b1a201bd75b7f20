import type { CaseOutcome, GradeResult } from '../../core/eval-types';
import { passOrFail, quoted } from './grade-result';

type EqualsSpec = { type: 'equals'; value: string; ignoreCase?: boolean };

/** The answer is the value, leading and trailing whitespace aside (models end answers with newlines at will). */
export function gradeEquals(spec: EqualsSpec, outcome: CaseOutcome, label: string): GradeResult {
  const fold = (text: string) => (spec.ignoreCase ? text.trim().toLowerCase() : text.trim());
  const equal = fold(outcome.answer) === fold(spec.value);
  return passOrFail(label, equal, equal ? 'the answer is the expected text' : `the answer is ${quoted(outcome.answer.trim())}`);
}
