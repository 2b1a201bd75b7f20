import type { CaseOutcome, GradeResult, ObservedToolCall } from '../../core/eval-types';
import { shareOfChecks } from './grade-result';
import { isRecord } from '../../core/is-record';
import { deepEqual } from './json-schema-subset';

type ToolCallsSpec = {
  type: 'tool-calls';
  calls?: Array<{ name: string; arguments?: Record<string, unknown> }>;
  only?: string[];
};

/**
 * Each expected call was made (some call of that tool whose arguments contain the expected ones), and with `only`, no
 * call of a tool outside it. The score is the share of these checks that held.
 */
export function gradeToolCalls(spec: ToolCallsSpec, outcome: CaseOutcome, label: string): GradeResult {
  const checks = (spec.calls ?? []).map((expected) => {
    const made = outcome.toolCalls.some(
      (call) => call.name === expected.name && (expected.arguments === undefined || contains(call.arguments, expected.arguments)),
    );
    const wanted = expected.arguments ? `${expected.name} ${JSON.stringify(expected.arguments)}` : expected.name;
    return { held: made, reason: `no call ${wanted}${madeOf(outcome.toolCalls, expected.name)}` };
  });
  if (spec.only) {
    const allowed = new Set(spec.only);
    const outside = [...new Set(outcome.toolCalls.map((call) => call.name).filter((name) => !allowed.has(name)))];
    checks.push({ held: outside.length === 0, reason: `called tools outside [${spec.only.join(', ')}]: ${outside.join(', ')}` });
  }
  return shareOfChecks(label, checks);
}

/** Whether `actual` holds everything in `expected`: objects by their given keys (more keys allowed), the rest exactly. */
export function contains(actual: unknown, expected: unknown): boolean {
  if (isRecord(expected))
    return (
      isRecord(actual) &&
      Object.entries(expected).every(([key, value]) => Object.hasOwn(actual, key) && contains(actual[key], value))
    );
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) && actual.length === expected.length && expected.every((item, index) => contains(actual[index], item))
    );
  return deepEqual(actual, expected);
}

function madeOf(calls: ObservedToolCall[], name: string): string {
  const count = calls.filter((call) => call.name === name).length;
  return count === 0 ? '' : ` (${count} call${count === 1 ? '' : 's'} of ${name} with other arguments)`;
}
