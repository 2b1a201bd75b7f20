import type { CaseReport, EvalReport } from '../../core/eval-types';
import { recordedName } from '../workflow/pairs';
import { summarize, withRepeatStats } from '../workflow/scores';

/**
 * Two finished evals side by side, as one report the table, `--json`, the HTML and JUnit render like any: the cases
 * both answered (by id), each candidate named `<candidate>@<eval id>`, the recorded baseline once (the first eval's,
 * as the cases are the same), and the summary computed again over those cases only. The cases only one of them has
 * are listed in `compared`, never mixed in.
 */
export function compareReports(first: EvalReport, second: EvalReport): EvalReport {
  const label = (report: EvalReport, name: string) => (name === recordedName ? name : `${name}@${report.evalId}`);
  const secondCases = new Map(second.cases.map((entry) => [entry.case.id, entry]));
  const firstIds = new Set(first.cases.map((entry) => entry.case.id));
  const candidates = [
    ...new Set([
      ...(first.candidates.includes(recordedName) || second.candidates.includes(recordedName) ? [recordedName] : []),
      ...first.candidates.filter((name) => name !== recordedName).map((name) => label(first, name)),
      ...second.candidates.filter((name) => name !== recordedName).map((name) => label(second, name)),
    ]),
  ];
  const relabel = (report: EvalReport, entry: CaseReport) =>
    entry.outcomes
      .filter((outcome) => outcome.candidate !== recordedName)
      .map((outcome) => ({ ...outcome, candidate: label(report, outcome.candidate) }));
  const cases = first.cases.flatMap((entry) => {
    const other = secondCases.get(entry.case.id);
    if (!other) return [];
    const baseline = [...entry.outcomes, ...other.outcomes].find((outcome) => outcome.candidate === recordedName);
    const merged: CaseReport = {
      case: entry.case,
      outcomes: [...(baseline ? [baseline] : []), ...relabel(first, entry), ...relabel(second, other)],
    };
    const repeated = merged.outcomes.some((outcome) => outcome.repeat !== undefined);
    return [
      repeated
        ? withRepeatStats(
            merged,
            candidates.filter((name) => name !== recordedName),
          )
        : merged,
    ];
  });
  return {
    evalId: `${first.evalId} vs ${second.evalId}`,
    startedAt: first.startedAt,
    candidates,
    cases,
    summary: summarize(candidates, cases),
    compared: {
      evals: [first.evalId, second.evalId],
      onlyInFirst: first.cases.filter((entry) => !secondCases.has(entry.case.id)).map((entry) => entry.case.id),
      onlyInSecond: second.cases.filter((entry) => !firstIds.has(entry.case.id)).map((entry) => entry.case.id),
    },
  };
}
