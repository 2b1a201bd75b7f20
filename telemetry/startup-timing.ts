import { performance } from 'node:perf_hooks';

/**
 * AGENT_TIMING=1: each step of a command's start-up (modules loaded, server,
 * connection, worker, workflow start, first activities) is written to stderr as
 * `[timing] +<ms since the process started> @<epoch ms> <step>`. The first-run
 * benchmark (bench/first-run.ts) reads these lines for its breakdown.
 */
export function timingMark(step: string): void {
  if (process.env.AGENT_TIMING !== '1') return;
  const sinceStart = performance.now();
  process.stderr.write(`[timing] +${sinceStart.toFixed(1)} @${(performance.timeOrigin + sinceStart).toFixed(1)} ${step}\n`);
}
