import { performance } from 'node:perf_hooks';
import type { DataConverter } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { Benchmark } from './support/benchmark';
import { floorBundleCode, floorOn, runFloor } from './support/floor';
import type { FinishedRun } from './support/finished-run';
import { formatBytes, formatCount, formatMs, markdownTable, type TargetRow } from './support/format';
import { modelCalls } from './support/history';
import { benchEchoLocal } from './support/bench-tools';
import { runLoopSession } from './support/loop-session';
import { log } from './support/log';
import { median } from './support/stats';

const repetitions = 3;
const targetMs = 2_000;
const warmUpIterations = 10;

interface ReplayTimes {
  /** The long history's own replay, after the warm-up: wall time. */
  alone: number[];
  /** The same stretch in CPU time (every thread of this process: the workflow thread, Core, the main thread). */
  cpu: number[];
  /** From creating the replay worker to the last result. */
  total: number[];
  errors: Set<string>;
}

/**
 * (d) How long a worker takes to replay a long run, as when the run's workflow
 * was evicted or its worker restarted: every run of the workflow id replayed
 * with the prebuilt bundle, the median of three. A short history goes first
 * through the same replay worker, so the long one's own replay time is the
 * time between their results; the total includes creating the replay worker.
 *
 * Temporal's floor goes side by side: the bare floor workflow (two no-op
 * activities per iteration, the same events per iteration as ours) replayed
 * the same way, its repetitions interleaved with ours so that both meet the
 * same load. The ratio says what our workflow code adds to the SDK's own cost.
 */
export const replay: Benchmark = {
  name: 'replay',
  title: 'Replay of a long history, against the floor',
  async run(context) {
    const iterations = context.quick ? 100 : 1000;
    const warmUp = await context.loopSession(warmUpIterations);
    const session = await context.loopSession(iterations);
    log(`replay: recording our ${iterations}-iteration loop with the tool opted in to a local activity...`);
    const localWarmUp = await runLoopSession(context.environment, warmUpIterations, undefined, benchEchoLocal.name);
    const localSession = await runLoopSession(context.environment, iterations, undefined, benchEchoLocal.name);
    log(`replay: recording the floor's ${iterations}-iteration history...`);
    const floorTarget = await floorOn(context.environment, 'project');
    const floorDeadline = 60_000 + 500 * iterations;
    const floorWarmUp = await runFloor(floorTarget, warmUpIterations, 'activity', floorDeadline);
    const floorLong = await runFloor(floorTarget, iterations, 'activity', floorDeadline);
    const floorCode = await floorBundleCode();

    const ours = emptyTimes();
    const oursLocal = emptyTimes();
    const floor = emptyTimes();
    for (let repetition = 1; repetition <= repetitions; repetition++) {
      log(`replay: replaying ours and the floor's ${iterations}-iteration histories (${repetition} of ${repetitions})...`);
      // Ours with the project's data converter: a long run carries its conversation to the next run in external storage.
      const converter = context.environment.dataConverter;
      await timeReplay(context.environment.bundleCode, warmUp, session, ours, converter);
      await timeReplay(context.environment.bundleCode, localWarmUp, localSession, oursLocal, converter);
      await timeReplay(floorCode, floorWarmUp, floorLong, floor);
    }

    const recorded = Math.max(0, modelCalls(session.runs).length - 1);
    const what = describe(session, `${formatCount(recorded)} iterations`);
    const floorWhat = describe(floorLong, `${formatCount(iterations)} iterations`);
    const localRecorded = Math.max(0, modelCalls(localSession.runs).length - 1);
    const localWhat = describe(localSession, `${formatCount(localRecorded)} iterations`);
    const localRatio = median(oursLocal.alone) / median(floor.alone);
    const ratio = median(ours.alone) / median(floor.alone);
    const cpuRatio = median(ours.cpu) / median(floor.cpu);
    const targets: TargetRow[] = [
      {
        measure: `replay of a ${formatCount(iterations)}-iteration history`,
        result:
          `median ${formatMs(median(ours.alone))}; with the replay worker's start ${formatMs(median(ours.total))} (${what}); ` +
          `the bare floor's same-size history ${formatMs(median(floor.alone))} in the same run: ${ratio.toFixed(2)}× the floor ` +
          `(CPU ${cpuRatio.toFixed(2)}×)` +
          (session.completed ? '' : `; the recorded run was ${session.outcome}`) +
          (ours.errors.size > 0 ? `; replay errors: ${[...ours.errors].join('; ')}` : ''),
        target: 'under 2 s',
        pass: session.completed && recorded >= iterations && ours.errors.size === 0 && median(ours.alone) < targetMs,
      },
      {
        measure: `replay of a ${formatCount(iterations)}-iteration history, the tool opted in to a local activity`,
        result:
          `median ${formatMs(median(oursLocal.alone))} (${localWhat}): ${localRatio.toFixed(2)}× the default floor's` +
          (localSession.completed ? '' : `; the recorded run was ${localSession.outcome}`) +
          (oursLocal.errors.size > 0 ? `; replay errors: ${[...oursLocal.errors].join('; ')}` : ''),
        target: 'under 2 s (an opt-in, not the default)',
        pass:
          localSession.completed &&
          localRecorded >= iterations &&
          oursLocal.errors.size === 0 &&
          median(oursLocal.alone) < targetMs,
      },
    ];
    return {
      details: [
        markdownTable(
          [
            'workflow',
            'history',
            'recorded run',
            'replay: median',
            'min',
            'max',
            'CPU: median',
            'with replay worker start: median',
            'replay errors',
          ],
          [
            row('ours (agentWorkflow)', what, session, ours),
            row('ours, the tool opted in to a local activity', localWhat, localSession, oursLocal),
            row('the bare floor (floorLoop)', floorWhat, floorLong, floor),
          ],
        ),
        `Ours against the floor: ${ratio.toFixed(2)}× in wall time, ${cpuRatio.toFixed(2)}× in CPU time. ` +
          `Ours is the overhead benchmark's run (recorded again when overhead is not selected); the floor is a bare workflow with two ` +
          `no-op activities per iteration, the same 12 events per iteration. Each repetition creates a replay worker from the prebuilt ` +
          `bundle, replays a ${warmUpIterations}-iteration history of the same workflow to warm it up, then every run of the long one; ` +
          `the repetitions of ours and the floor's alternate. CPU is the process's user and system time over the long history's replay.`,
      ],
      targets,
    };
  },
};

function emptyTimes(): ReplayTimes {
  return { alone: [], cpu: [], total: [], errors: new Set() };
}

async function timeReplay(
  bundleCode: string,
  warmUp: FinishedRun<unknown>,
  long: FinishedRun<unknown>,
  times: ReplayTimes,
  dataConverter?: DataConverter,
): Promise<void> {
  const histories = [warmUp, long].flatMap((recorded) =>
    recorded.runs.map((run) => ({ workflowId: recorded.workflowId, history: run.history })),
  );
  const started = performance.now();
  let warmedUp = Number.NaN;
  let cpuAtWarmUp = process.cpuUsage();
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: { code: bundleCode }, dataConverter }, histories)) {
    if (result.error) times.errors.add(`${result.runId}: ${result.error.message}`);
    if (++replayed === warmUp.runs.length) {
      warmedUp = performance.now();
      cpuAtWarmUp = process.cpuUsage();
    }
  }
  const finished = performance.now();
  const cpu = process.cpuUsage(cpuAtWarmUp);
  times.total.push(finished - started);
  times.alone.push(finished - warmedUp);
  times.cpu.push((cpu.user + cpu.system) / 1000);
}

function describe(recorded: FinishedRun<unknown>, iterations: string): string {
  const events = recorded.runs.reduce((total, run) => total + run.events.length, 0);
  const bytes = recorded.runs.reduce((total, run) => total + run.bytes, 0);
  return `${iterations}, ${recorded.runs.length} run(s), ${formatCount(events)} events, ${formatBytes(bytes)}`;
}

function row(name: string, what: string, recorded: FinishedRun<unknown>, times: ReplayTimes): string[] {
  return [
    name,
    what,
    recorded.outcome,
    formatMs(median(times.alone)),
    formatMs(Math.min(...times.alone)),
    formatMs(Math.max(...times.alone)),
    formatMs(median(times.cpu)),
    formatMs(median(times.total)),
    times.errors.size === 0 ? 'none' : [...times.errors].join('; '),
  ];
}
