import { median } from './stats';

export interface Growth {
  /** Median iteration time in the first and the last tenth of the time both loops ran. */
  headMs: number;
  tailMs: number;
  /** tail / head */
  factor: number;
}

type Iteration = { startedMs: number; ms: number };

/**
 * Whether a loop's iterations get slower as it goes, against a control loop
 * that ran at the same time: both are judged over the same stretches of wall
 * time (the first and last tenth of the time both were running), so load that
 * comes and goes on the machine shows in both, and only growth of the loop's
 * own cost shows in one.
 */
export function growthSideBySide(loop: Iteration[], control: Iteration[]): { loop: Growth; control: Growth } {
  const start = Math.max(loop[0]?.startedMs ?? 0, control[0]?.startedMs ?? 0);
  const end = Math.min(lastStart(loop), lastStart(control));
  const tenth = (end - start) / 10;
  const growth = (iterations: Iteration[]): Growth => {
    const head = median(iterations.filter((it) => it.startedMs >= start && it.startedMs < start + tenth).map((it) => it.ms));
    const tail = median(iterations.filter((it) => it.startedMs > end - tenth && it.startedMs <= end).map((it) => it.ms));
    return { headMs: head, tailMs: tail, factor: tail / head };
  };
  return { loop: growth(loop), control: growth(control) };
}

function lastStart(iterations: Iteration[]): number {
  return iterations.at(-1)?.startedMs ?? 0;
}
