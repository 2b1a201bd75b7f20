import { appendFile, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { defineTool, type Tool } from '../../tools/define-tool';
import { fileExists } from './workspace';

/** One line of the step log: a handler of `slow_step` started or finished, on which worker, when. */
export interface StepLogEntry {
  event: 'start' | 'finish';
  label: string;
  worker: string;
  at: number;
}

/**
 * A tool for fault tests that leaves evidence of every execution: it appends a
 * `start` line to `logFile` when its handler begins and a `finish` line when it
 * ends, so a test can count how many times each tool call really ran and where.
 * It waits `ms` milliseconds, and first for `waitForFile` to exist when given
 * (a gate the test opens when it is ready for the call to end).
 */
export function slowStepTool(logFile: string, worker: string): Tool {
  const record = (event: StepLogEntry['event'], label: string) =>
    appendFile(logFile, `${JSON.stringify({ event, label, worker, at: Date.now() } satisfies StepLogEntry)}\n`);
  return defineTool({
    name: 'slow_step',
    description: 'Test tool: records that it ran, then waits.',
    // A gated call waits as long as its test takes to open the gate, which on a loaded machine can pass the default
    // 60 s: a timed-out first attempt then shows up as a second one. Heartbeats still expose a dead worker in 30 s.
    activity: { timeout: '10m' },
    input: z.object({
      label: z.string(),
      ms: z.number().int().min(0),
      waitForFile: z.string().optional(),
    }),
    async handler({ label, ms, waitForFile }, { signal }) {
      await record('start', label);
      if (waitForFile) await waitForPath(waitForFile, signal);
      await sleep(ms, undefined, { signal });
      await record('finish', label);
      return `${label} done`;
    },
  });
}

async function waitForPath(file: string, signal: AbortSignal): Promise<void> {
  while (!(await fileExists(file))) {
    await sleep(100, undefined, { signal });
  }
}

export async function readStepLog(logFile: string): Promise<StepLogEntry[]> {
  const text = await readFile(logFile, 'utf8').catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT' ? '' : Promise.reject(error),
  );
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as StepLogEntry);
}

/** The step log reduced to what the tests assert: for each label, its events in order as `event@worker`. */
export function stepHistory(entries: StepLogEntry[]): Record<string, string[]> {
  const byLabel: Record<string, string[]> = {};
  for (const entry of entries) (byLabel[entry.label] ??= []).push(`${entry.event}@${entry.worker}`);
  return byLabel;
}
