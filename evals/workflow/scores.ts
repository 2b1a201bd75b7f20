import { addUsage, zeroUsage, type Usage } from '../../core/usage';
import type { CaseOutcome, CaseReport, CutPair, EvalCase, EvalReport, GradeResult } from '../../core/eval-types';
import type { ScoredOutcome } from './definitions';
import { pairKey, recordedName } from './pairs';
import { meanOfStats, repeatStats } from './repeat-stats';

/**
 * An outcome's score is the mean of its grades; it passes when every grade passes. Without graders, an answer that
 * completed scores 1. A run that failed scores 0 and is not graded: there is no answer to grade.
 */
export function scored(outcome: CaseOutcome, grades: GradeResult[]): ScoredOutcome {
  if (outcome.status === 'failed') return { ...outcome, grades, score: 0, pass: false };
  if (grades.length === 0) {
    const completed = outcome.status === 'completed';
    return { ...outcome, grades, score: completed ? 1 : 0, pass: completed };
  }
  const score = grades.reduce((sum, grade) => sum + grade.score, 0) / grades.length;
  return { ...outcome, grades, score, pass: grades.every((grade) => grade.pass) };
}

/** What a pair cost: its run, and the grading (the judges' runs). */
export function pairCost(outcome: ScoredOutcome): Usage {
  return outcome.grades.reduce((sum, grade) => (grade.usage ? addUsage(sum, grade.usage) : sum), outcome.usage);
}

/** What a pair cost in US dollars; the recorded baseline's run was paid before the eval, only its judging counts. */
export function pairSpendUsd(outcome: ScoredOutcome): number {
  const grading = outcome.grades.reduce((sum, grade) => sum + (grade.usage?.costUsd ?? 0), 0);
  return outcome.candidate === recordedName ? grading : (outcome.usage.costUsd ?? 0) + grading;
}

/** The report: per case its outcomes in candidate order (the baseline first), and the summary per candidate. */
export function buildReport(options: {
  evalId: string;
  startedAt: string;
  cases: EvalCase[];
  candidates: string[];
  /** How many times each candidate answered each case (default 1). */
  repeat?: number;
  outcomes: ScoredOutcome[];
  /** Pairs the budget cut: never scored, their spend in their candidate's cost. */
  cut?: CutPair[];
  notRun: string[];
}): EvalReport {
  const cut = options.cut ?? [];
  const repeat = options.repeat ?? 1;
  const byKey = new Map(options.outcomes.map((outcome) => [pairKey(outcome.caseId, outcome.candidate, outcome.repeat), outcome]));
  const hasBaseline = options.cases.some((evalCase) => evalCase.recorded);
  const names = [...(hasBaseline ? [recordedName] : []), ...options.candidates];
  const cases: CaseReport[] = options.cases.flatMap((evalCase) => {
    const outcomes = names.flatMap((name) =>
      Array.from(
        { length: name === recordedName ? 1 : repeat },
        (_, index) => byKey.get(pairKey(evalCase.id, name, index + 1)) ?? [],
      ).flat(),
    );
    if (outcomes.length === 0) return [];
    const entry: CaseReport = { case: { id: evalCase.id, source: evalCase.source, prompt: evalCase.prompt }, outcomes };
    return [repeat > 1 ? withRepeatStats(entry, options.candidates) : entry];
  });
  const cutUsd = (name: string) => cut.filter((pair) => pair.candidate === name).reduce((sum, pair) => sum + pair.costUsd, 0);
  return {
    evalId: options.evalId,
    startedAt: options.startedAt,
    candidates: names,
    cases,
    summary: summarize(names, cases).map((entry) => ({ ...entry, costUsd: entry.costUsd + cutUsd(entry.candidate) })),
    ...(options.notRun.length > 0 && {
      stopped: { reason: 'budget' as const, notRun: options.notRun, ...(cut.length > 0 && { cut }) },
    }),
  };
}

/** A case's report with each repeated candidate's mean, spread and pass@k. */
export function withRepeatStats(entry: CaseReport, candidates: string[]): CaseReport {
  const repeats = candidates.map((name) =>
    repeatStats(
      name,
      entry.outcomes.filter((outcome) => outcome.candidate === name),
    ),
  );
  return { ...entry, repeats };
}

/**
 * The summary per candidate: the mean score of its outcomes, those passed and failed, its cost, and the cases where
 * it did worse than the recorded baseline (in a repeated eval, where its runs' mean was lower); with the mean of the
 * cases' repeat stats when there are some.
 */
export function summarize(names: string[], cases: CaseReport[]): EvalReport['summary'] {
  return names.map((name) => {
    const entry = summaryOf(name, cases);
    const perCase = cases.flatMap((report) => report.repeats?.filter((stats) => stats.candidate === name) ?? []);
    return perCase.length > 0 ? { ...entry, repeats: meanOfStats(name, perCase) } : entry;
  });
}

function summaryOf(name: string, cases: CaseReport[]): EvalReport['summary'][number] {
  let total = 0;
  let passed = 0;
  let failed = 0;
  let worse = 0;
  let cost = zeroUsage;
  for (const report of cases) {
    const outcomes = report.outcomes.filter((entry) => entry.candidate === name);
    if (outcomes.length === 0) continue;
    for (const outcome of outcomes) {
      total += outcome.score;
      if (outcome.pass) passed++;
      else failed++;
      cost = addUsage(cost, name === recordedName ? gradingOnly(outcome) : pairCost(outcome));
    }
    const mean = outcomes.reduce((sum, outcome) => sum + outcome.score, 0) / outcomes.length;
    const baseline = report.outcomes.find((entry) => entry.candidate === recordedName);
    if (baseline && name !== recordedName && mean < baseline.score) worse++;
  }
  const count = passed + failed;
  return { candidate: name, score: count > 0 ? total / count : 0, passed, failed, costUsd: cost.costUsd ?? 0, worse };
}

function gradingOnly(outcome: ScoredOutcome): Usage {
  return pairCost({ ...outcome, usage: zeroUsage });
}
