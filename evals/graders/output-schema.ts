import type { CaseOutcome, GradeResult } from '../../core/eval-types';
import { passOrFail } from './grade-result';
import { schemaViolations } from './json-schema-subset';

type OutputSchemaSpec = { type: 'output-schema'; schema?: Record<string, unknown> };

const shownViolations = 5;

/**
 * Without a schema: the run's structured output exists, i.e. the agent's own outputSchema accepted the answer (the
 * run checked it; a run whose answer never matched ends `invalid_output` with none). With one: the structured output,
 * or else the answer read as JSON (a ```json fence around it allowed), matches it.
 */
export function gradeOutputSchema(spec: OutputSchemaSpec, outcome: CaseOutcome, label: string): GradeResult {
  if (!spec.schema) {
    const present = outcome.output !== undefined;
    return passOrFail(
      label,
      present,
      present ? "the answer matches the agent's outputSchema" : `no structured output (the run ended ${outcome.status})`,
    );
  }
  const value = outcome.output !== undefined ? { parsed: outcome.output } : parseAnswer(outcome.answer);
  if (!('parsed' in value)) return passOrFail(label, false, value.problem);
  const violations = schemaViolations(spec.schema, value.parsed);
  if (violations.length === 0) return passOrFail(label, true, 'the output matches the schema');
  const more = violations.length > shownViolations ? ` (and ${violations.length - shownViolations} more)` : '';
  return passOrFail(label, false, violations.slice(0, shownViolations).join('; ') + more);
}

function parseAnswer(answer: string): { parsed: unknown } | { problem: string } {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(answer.trim());
  try {
    return { parsed: JSON.parse(fenced ? fenced[1] : answer) };
  } catch (error) {
    return { problem: `the answer is not JSON (${(error as Error).message})` };
  }
}
