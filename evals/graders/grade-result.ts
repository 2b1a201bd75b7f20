import type { GradeResult } from '../../core/eval-types';

/** A pass-or-fail grade: score 1 or 0. */
export function passOrFail(grader: string, passed: boolean, reason: string): GradeResult {
  return { grader, score: passed ? 1 : 0, pass: passed, reason };
}

/** A grade that is the share of its checks that held; it passes only when all did. */
export function shareOfChecks(grader: string, checks: Array<{ held: boolean; reason: string }>): GradeResult {
  const held = checks.filter((check) => check.held).length;
  const failed = checks.filter((check) => !check.held).map((check) => check.reason);
  return {
    grader,
    score: checks.length === 0 ? 1 : held / checks.length,
    pass: held === checks.length,
    reason: failed.length === 0 ? `all ${checks.length} checks held` : failed.join('; '),
  };
}

/** Quotes foreign text for a reason or a label, cut to `max` characters so a long value cannot swamp a report. */
export function quoted(text: string, max = 60): string {
  const cut = [...text];
  return JSON.stringify(cut.length > max ? `${cut.slice(0, max).join('')}…` : text);
}
