import type { CaseOutcome, GradeResult } from '../../core/eval-types';
import { passOrFail, quoted } from './grade-result';

type ContainsSpec = { type: 'contains'; value: string; ignoreCase?: boolean };

export function gradeContains(spec: ContainsSpec, outcome: CaseOutcome, label: string): GradeResult {
  const fold = (text: string) => (spec.ignoreCase ? text.toLowerCase() : text);
  const found = fold(outcome.answer).includes(fold(spec.value));
  return passOrFail(label, found, found ? `the answer contains ${quoted(spec.value)}` : `the answer lacks ${quoted(spec.value)}`);
}
