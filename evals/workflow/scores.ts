import { addUsage, zeroUsage, type Usage } from '../../core/usage';
import type { CaseOutcome, CaseReport, EvalCase, EvalReport, GradeResult } from '../../core/eval-types';
import type { ScoredOutcome } from './definitions';
import { pairKey, recordedName } from './pairs';

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
  outcomes: ScoredOutcome[];
  notRun: string[];
}): EvalReport {
  const byKey = new Map(options.outcomes.map((outcome) => [pairKey(outcome.caseId, outcome.candidate), outcome]));
  const hasBaseline = options.cases.some((evalCase) => evalCase.recorded);
  const names = [...(hasBaseline ? [recordedName] : []), ...options.candidates];
  const cases: CaseReport[] = options.cases.flatMap((evalCase) => {
    const outcomes = names.flatMap((name) => byKey.get(pairKey(evalCase.id, name)) ?? []);
    return outcomes.length > 0 ? [{ case: { id: evalCase.id, source: evalCase.source, prompt: evalCase.prompt }, outcomes }] : [];
  });
  return {
    evalId: options.evalId,
    startedAt: options.startedAt,
    candidates: names,
    cases,
    summary: names.map((name) => summaryOf(name, cases)),
    ...(options.notRun.length > 0 && { stopped: { reason: 'budget' as const, notRun: options.notRun } }),
  };
}

function summaryOf(name: string, cases: CaseReport[]): EvalReport['summary'][number] {
  let total = 0;
  let passed = 0;
  let failed = 0;
  let worse = 0;
  let cost = zeroUsage;
  for (const report of cases) {
    const outcome = report.outcomes.find((entry) => entry.candidate === name);
    if (!outcome) continue;
    total += outcome.score;
    if (outcome.pass) passed++;
    else failed++;
    cost = addUsage(cost, name === recordedName ? gradingOnly(outcome) : pairCost(outcome));
    const baseline = report.outcomes.find((entry) => entry.candidate === recordedName);
    if (baseline && name !== recordedName && outcome.score < baseline.score) worse++;
  }
  const count = passed + failed;
  return { candidate: name, score: count > 0 ? total / count : 0, passed, failed, costUsd: cost.costUsd ?? 0, worse };
}

function gradingOnly(outcome: ScoredOutcome): Usage {
  return pairCost({ ...outcome, usage: zeroUsage });
}
