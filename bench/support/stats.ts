/** Small statistics over samples; every input is copied, never sorted in place. */

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile; NaN for no samples. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** The first and last `fraction` of the samples (at least one each), in order. */
export function headAndTail<T>(values: T[], fraction: number): { head: T[]; tail: T[] } {
  const count = Math.max(1, Math.round(values.length * fraction));
  return { head: values.slice(0, count), tail: values.slice(-count) };
}
