import type { Benchmark } from './support/benchmark';
import { serverLabels } from './support/bench-server';
import { formatCount, formatMs, markdownTable, type TargetRow } from './support/format';
import { floorModelActivityType, floorOn, runFloor } from './support/floor';
import { growthSideBySide } from './support/growth';
import { loopIterations, modelActivityType, taskTimings } from './support/history';
import { log } from './support/log';
import type { LoopVariant } from './support/loop-variants';
import { variantLabel } from './support/loop-variants';
import { sideBySide, type VariantRuns } from './support/side-by-side';
import { median, percentile } from './support/stats';

const floorRatioTarget = 1.1;
const eagerTarget = 0.8;

const variants: LoopVariant[] = [
  { kind: 'ours', setting: 'project' },
  { kind: 'ours-local-tool', setting: 'project' },
  { kind: 'floor', setting: 'project' },
  { kind: 'floor-local-tool', setting: 'project' },
  { kind: 'ours', setting: 'no-eager' },
  { kind: 'floor', setting: 'no-eager' },
  { kind: 'floor-local-tool', setting: 'no-eager' },
];

/**
 * What our loop costs per iteration against Temporal's floor for the same
 * pattern (a bare workflow with one model-like and one tool-like no-op activity
 * per iteration), measured side by side in one run, on a dev server with eager
 * activity execution (the project's setting) and one without (the floor before
 * it). The tool as a local activity shows what that would save. A long run of
 * ours checks that an iteration costs the same at the end as at the start.
 */
export const overhead: Benchmark = {
  name: 'overhead',
  title: 'Loop overhead against the floor, with and without eager activities',
  async run(context) {
    const rounds = context.quick ? 2 : 5;
    const iterations = context.quick ? 30 : 100;
    const longIterations = context.quick ? 100 : 1000;
    log(`overhead: ${variants.length} loop variants side by side, ${rounds} rounds of ${iterations} iterations...`);
    const measured = await sideBySide(context.environment, { variants, rounds, iterations, warmUpIterations: 10 });
    log(`overhead: our ${longIterations}-iteration loop and the floor's at the same time, for growth...`);
    const floorTarget = await floorOn(context.environment, 'project');
    const [long, longFloor] = await Promise.all([
      context.loopSession(longIterations),
      runFloor(floorTarget, longIterations, 'activity', 60_000 + 500 * longIterations),
    ]);
    const longIterationsOfOurs = loopIterations(long.runs, modelActivityType);
    const longTimes = longIterationsOfOurs.map((iteration) => iteration.ms);
    const growth = growthSideBySide(longIterationsOfOurs, loopIterations(longFloor.runs, floorModelActivityType));

    const find = (kind: LoopVariant['kind'], setting: LoopVariant['setting']) =>
      measured.find((entry) => entry.variant.kind === kind && entry.variant.setting === setting)!;
    const todaysFloor = median(find('floor', 'no-eager').times);
    const ours = median(find('ours', 'project').times);
    const oursLocalTool = median(find('ours-local-tool', 'project').times);
    const floor = median(find('floor', 'project').times);
    const allCompleted = measured.every((entry) => entry.runs.every((run) => run.completed));

    const rows = measured.map((entry) => {
      const sameServerFloor = median(find('floor', entry.variant.setting).times);
      return [
        variantLabel(entry.variant),
        `${entry.runs.filter((run) => run.completed).length} of ${entry.runs.length} completed`,
        formatCount(entry.times.length),
        formatMs(median(entry.times)),
        formatMs(percentile(entry.times, 95)),
        ratio(median(entry.times), sameServerFloor),
        ratio(median(entry.times), todaysFloor),
      ];
    });
    // Ours may grow 25% (or 2 ms) more than the floor did over the same stretch of time.
    const growthOk =
      growth.loop.tailMs <=
      Math.max(growth.loop.headMs * growth.control.factor * 1.25, growth.loop.headMs * growth.control.factor + 2);
    const targets: TargetRow[] = [
      {
        measure: 'our loop iteration against the bare floor on the same server (eager on)',
        result: `${formatMs(ours)} vs ${formatMs(floor)}: ${ratio(ours, floor)}`,
        target: `≤ ${floorRatioTarget}× the floor`,
        pass: allCompleted && ours <= floorRatioTarget * floor,
      },
      {
        measure: "our loop with eager activities against today's floor (eager off)",
        result: `${formatMs(ours)} vs ${formatMs(todaysFloor)}: ${ratio(ours, todaysFloor)}`,
        target: `≤ ${eagerTarget}× today's floor`,
        pass: allCompleted && ours <= eagerTarget * todaysFloor,
      },
      {
        measure: "our loop with eager activities and the tool opted in to a local activity against today's floor",
        result: `${formatMs(oursLocalTool)} vs ${formatMs(todaysFloor)}: ${ratio(oursLocalTool, todaysFloor)}`,
        target: `≤ ${eagerTarget}× today's floor (an opt-in, not the default)`,
        pass: allCompleted && oursLocalTool <= eagerTarget * todaysFloor,
      },
      {
        measure: `no growth over a ${formatCount(longIterations)}-iteration loop (ours, eager on), the floor running alongside`,
        result:
          `ours ${formatMs(growth.loop.headMs)} → ${formatMs(growth.loop.tailMs)} (${growth.loop.factor.toFixed(2)}×), ` +
          `floor ${formatMs(growth.control.headMs)} → ${formatMs(growth.control.tailMs)} (${growth.control.factor.toFixed(2)}×); ` +
          `ours: median ${formatMs(median(longTimes))}, p95 ${formatMs(percentile(longTimes, 95))}, ${long.runs.length} run(s)` +
          (long.completed ? '' : `; ${long.outcome}`),
        target: 'first → last tenth of the time: ours grows at most 25% (or 2 ms) more than the floor',
        pass: long.completed && longTimes.length >= longIterations && longFloor.completed && growthOk,
      },
    ];
    return {
      details: [
        markdownTable(
          [
            'loop',
            'runs',
            'iterations',
            'per iteration: median',
            'p95',
            'vs the floor, same server',
            "vs today's floor (eager off)",
          ],
          rows,
        ),
        `Each run is ${formatCount(iterations)} iterations; ${rounds} rounds run one of each loop in turn, the order rotating ` +
          'each round, after a 10-iteration warm-up run of each. An iteration runs from one model-like Scheduled event to the next ' +
          '(history timestamps). Our loop: callModel (scripted, zero latency, transcript store as in production) asks for ' +
          '`bench_echo`, which answers at once (or `bench_echo_local`, the same tool with `activity: { local: true }`). The floor: `bench/floor/workflows.ts` with the SDK default worker options.',
        phaseTable(measured),
        'Medians over every task of the runs above. With eager activities the server hands the activity to the worker in its ' +
          'answer to the workflow task; a local activity runs inside the workflow task (no activity events, its time is in ' +
          '"workflow task: run").',
      ],
      targets,
    };
  },
};

function ratio(value: number, reference: number): string {
  return `${(value / reference).toFixed(2)}×`;
}

function phaseTable(measured: VariantRuns[]): string {
  const phases = [
    ['workflow task: scheduled → started (server hands it to the worker)', 'workflowTaskWait'],
    ['workflow task: started → completed (the worker runs the workflow code)', 'workflowTaskRun'],
    ['activity: scheduled → started', 'activityWait'],
    ['activity: started → completed', 'activityRun'],
  ] as const;
  const timings = measured.map((entry) => taskTimings(entry.runs.flatMap((run) => run.runs)));
  const header = [
    'where an iteration goes (median)',
    ...measured.map((entry) => `${entry.variant.kind} (${serverLabels[entry.variant.setting]})`),
  ];
  const rows = phases.map(([label, key]) => [
    label,
    ...timings.map((timing) => (timing[key].length ? formatMs(median(timing[key])) : '–')),
  ]);
  const perIteration = measured.map((entry, index) => {
    const count = entry.times.length;
    const tasks = timings[index].workflowTaskRun.length;
    return count ? (tasks / (count + entry.runs.length)).toFixed(1) : '–';
  });
  return markdownTable(header, [...rows, ['workflow tasks per iteration', ...perIteration]]);
}
