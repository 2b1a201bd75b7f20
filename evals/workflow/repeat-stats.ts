import type { RepeatStats } from '../../core/eval-types';

/**
 * pass@k from n runs of which c passed: the chance that at least one of k runs drawn from the n (without replacement)
 * passes, 1 − C(n−c, k) / C(n, k), the unbiased estimator of Chen et al. (2021, "Evaluating Large Language Models
 * Trained on Code"), computed as a product so no binomial coefficient overflows.
 */
export function passAtK(runs: number, passed: number, k: number): number {
  if (k < 1 || k > runs) throw new RangeError(`pass@${k} needs 1 ≤ k ≤ ${runs} runs`);
  if (runs - passed < k) return 1;
  let allFail = 1;
  for (let i = runs - passed + 1; i <= runs; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** One candidate's repeated runs on one case: their mean score, spread and pass@k for every k up to their number. */
export function repeatStats(candidate: string, runs: Array<{ score: number; pass: boolean }>): RepeatStats {
  const count = runs.length;
  const mean = count > 0 ? runs.reduce((sum, run) => sum + run.score, 0) / count : 0;
  const variance = count > 0 ? runs.reduce((sum, run) => sum + (run.score - mean) ** 2, 0) / count : 0;
  const passed = runs.filter((run) => run.pass).length;
  return {
    candidate,
    runs: count,
    mean,
    stdev: Math.sqrt(variance),
    passAtK: Array.from({ length: count }, (_, index) => passAtK(count, passed, index + 1)),
  };
}

/**
 * A candidate's stats over the cases: the mean of each case's mean, spread and pass@k (k up to the fewest runs a
 * case had: a case the budget cut short has fewer), and the runs in all.
 */
export function meanOfStats(candidate: string, perCase: RepeatStats[]): RepeatStats {
  const cases = perCase.filter((stats) => stats.runs > 0);
  const mean = (values: number[]) => (values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : 0);
  const depth = cases.length > 0 ? Math.min(...cases.map((stats) => stats.passAtK.length)) : 0;
  return {
    candidate,
    runs: cases.reduce((sum, stats) => sum + stats.runs, 0),
    mean: mean(cases.map((stats) => stats.mean)),
    stdev: mean(cases.map((stats) => stats.stdev)),
    passAtK: Array.from({ length: depth }, (_, index) => mean(cases.map((stats) => stats.passAtK[index]))),
  };
}
