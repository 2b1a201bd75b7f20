import type { BenchEnvironment } from './environment';
import { log } from './log';
import { runLoopVariant, variantLabel, type LoopRun, type LoopVariant } from './loop-variants';

export interface SideBySideOptions {
  variants: LoopVariant[];
  rounds: number;
  iterations: number;
  /** A short run of each variant first, not counted: bundles load, sandboxes and connections warm up. */
  warmUpIterations: number;
}

/** Every run of one variant, in round order. */
export interface VariantRuns {
  variant: LoopVariant;
  runs: LoopRun[];
  /** Every iteration time of every run. */
  times: number[];
}

/**
 * Runs the variants in rounds, one run of each per round, the order rotating
 * from round to round: on a machine shared with other work, load that comes and
 * goes falls on every variant alike, so their ratios hold even when absolute
 * times drift.
 */
export async function sideBySide(environment: BenchEnvironment, options: SideBySideOptions): Promise<VariantRuns[]> {
  for (const variant of options.variants) await runLoopVariant(environment, variant, options.warmUpIterations);
  const collected = options.variants.map((variant) => ({ variant, runs: [] as LoopRun[], times: [] as number[] }));
  for (let round = 0; round < options.rounds; round++) {
    log(`  round ${round + 1} of ${options.rounds}: ${options.variants.length} runs of ${options.iterations} iterations`);
    for (let offset = 0; offset < collected.length; offset++) {
      const entry = collected[(round + offset) % collected.length];
      const run = await runLoopVariant(environment, entry.variant, options.iterations);
      if (!run.completed) log(`  ${variantLabel(entry.variant)}: ${run.outcome}`);
      entry.runs.push(run);
      entry.times.push(...run.times);
    }
  }
  return collected;
}
