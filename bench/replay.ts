import { performance } from 'node:perf_hooks';
import { Worker } from '@temporalio/worker';
import type { Benchmark } from './support/benchmark';
import { formatBytes, formatCount, formatMs, markdownTable, type TargetRow } from './support/format';
import { modelCalls } from './support/history';
import { log } from './support/log';
import type { Session } from './support/session';
import { median } from './support/stats';

const repetitions = 3;
const targetMs = 2_000;
const warmUpIterations = 10;

/**
 * (d) How long a worker takes to replay a long run, as when the run's workflow
 * was evicted or its worker restarted: every run of the workflow id replayed
 * with the prebuilt bundle, the median of three. A short history goes first
 * through the same replay worker, so the long one's own replay time is the
 * time between their results; the total includes creating the replay worker.
 */
export const replay: Benchmark = {
  name: 'replay',
  title: 'Replay of a long history',
  async run(context) {
    const iterations = context.quick ? 100 : 1000;
    const warmUp = await context.loopSession(warmUpIterations);
    const session = await context.loopSession(iterations);
    const histories = [warmUp, session].flatMap((recorded) => replayInput(recorded));
    const totals: number[] = [];
    const alone: number[] = [];
    const errors = new Set<string>();
    for (let repetition = 1; repetition <= repetitions; repetition++) {
      log(`replay: replaying the ${iterations}-iteration history (${repetition} of ${repetitions})...`);
      const started = performance.now();
      let warmedUp = Number.NaN;
      let replayed = 0;
      for await (const result of Worker.runReplayHistories(
        { workflowBundle: { code: context.environment.bundleCode } },
        histories,
      )) {
        if (result.error) errors.add(`${result.runId}: ${result.error.message}`);
        if (++replayed === warmUp.runs.length) warmedUp = performance.now();
      }
      const finished = performance.now();
      totals.push(finished - started);
      alone.push(finished - warmedUp);
    }

    const recorded = Math.max(0, modelCalls(session.runs).length - 1);
    const events = session.runs.reduce((total, run) => total + run.events.length, 0);
    const bytes = session.runs.reduce((total, run) => total + run.bytes, 0);
    const what = `${formatCount(recorded)} iterations, ${session.runs.length} run(s), ${formatCount(events)} events, ${formatBytes(bytes)}`;
    const targets: TargetRow[] = [
      {
        measure: `replay of a ${formatCount(iterations)}-iteration history`,
        result:
          `median ${formatMs(median(alone))}; with the replay worker's start ${formatMs(median(totals))} (${what})` +
          (session.completed ? '' : `; the recorded run was ${session.outcome}`) +
          (errors.size > 0 ? `; replay errors: ${[...errors].join('; ')}` : ''),
        target: 'under 2 s',
        pass: session.completed && recorded >= iterations && errors.size === 0 && median(alone) < targetMs,
      },
    ];
    return {
      details: [
        markdownTable(
          ['history', 'recorded run', 'replay: median', 'min', 'max', 'with replay worker start: median', 'replay errors'],
          [
            [
              what,
              session.outcome,
              formatMs(median(alone)),
              formatMs(Math.min(...alone)),
              formatMs(Math.max(...alone)),
              formatMs(median(totals)),
              errors.size === 0 ? 'none' : [...errors].join('; '),
            ],
          ],
        ),
        `The history is the overhead benchmark's run (recorded again when overhead is not selected). Each repetition creates a replay worker ` +
          `from the prebuilt bundle, replays a ${warmUpIterations}-iteration history to warm it up, then every run of the long one.`,
      ],
      targets,
    };
  },
};

function replayInput(session: Session) {
  return session.runs.map((run) => ({ workflowId: session.workflowId, history: run.history }));
}
