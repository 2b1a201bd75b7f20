import { performance } from 'node:perf_hooks';
import type { Message } from '../core/messages';
import { benchTools } from './support/bench-tools';
import type { Benchmark } from './support/benchmark';
import { formatCount, formatMs, markdownTable, type TargetRow } from './support/format';
import { modelCalls, taskTimings } from './support/history';
import { log } from './support/log';
import { echoLoopScript } from './support/loop-session';
import { ScriptedSessions } from './support/scripted-model';
import type { Session } from './support/session';
import { headAndTail, median, percentile } from './support/stats';

const medianTargetMs = 15;

interface Measured {
  iterations: number;
  session: Session;
  /** Iterations the history holds: all of them unless the run ended early. */
  done: number;
  /** Per-iteration times of the durable run, in order. */
  durable: number[];
  overheads: number[];
  inProcessMedian: number;
  headMedian: number;
  tailMedian: number;
}

/**
 * (b) What durability costs per loop iteration (one model activity, one tool
 * activity): the durable run's iteration times, from the history's
 * timestamps of consecutive model calls, against the same scripted model and
 * tool handler called in a plain in-process loop.
 */
export const overhead: Benchmark = {
  name: 'overhead',
  title: 'Orchestration overhead per loop iteration',
  async run(context) {
    const sizes = context.quick ? [10, 100] : [10, 1000];
    const measured: Measured[] = [];
    for (const iterations of sizes) {
      log(`overhead: a durable ${iterations}-iteration run and the same loop in process...`);
      const session = await context.loopSession(iterations);
      const calls = modelCalls(session.runs);
      const durable = calls.slice(1).map((call, index) => call.scheduledMs - calls[index].scheduledMs);
      const inProcess = await inProcessLoop(iterations, context.environment.workspace);
      const baseline = median(inProcess);
      const overheads = durable.map((ms) => ms - baseline);
      const { head, tail } = headAndTail(durable, 0.1);
      measured.push({
        iterations,
        session,
        done: durable.length,
        durable,
        overheads,
        inProcessMedian: baseline,
        headMedian: median(head),
        tailMedian: median(tail),
      });
    }

    const rows = measured.map((result) => [
      formatCount(result.iterations),
      result.session.completed ? 'completed' : `${result.session.outcome} (after ${result.done} iterations)`,
      formatMs(result.session.wallMs),
      formatMs(median(result.durable)),
      formatMs(percentile(result.durable, 95)),
      formatMs(result.headMedian),
      formatMs(result.tailMedian),
      formatMs(result.inProcessMedian),
      formatMs(median(result.overheads)),
      formatMs(percentile(result.overheads, 95)),
    ]);
    const largest = measured.at(-1)!;
    const timings = taskTimings(largest.session.runs);
    const perIteration = (count: number) => (largest.done > 0 ? (count / largest.done).toFixed(1) : '–');
    const phases: Array<[string, number[]]> = [
      ['workflow task: scheduled → started (the server hands it to the worker)', timings.workflowTaskWait],
      ['workflow task: started → completed (the worker runs the workflow code)', timings.workflowTaskRun],
      ['activity: scheduled → started (the server hands it to the worker)', timings.activityWait],
      ['activity: started → completed (callModel or bench_echo)', timings.activityRun],
    ];
    const timingRows = phases.map(([phase, samples]) => [
      phase,
      perIteration(samples.length),
      formatMs(median(samples)),
      formatMs(percentile(samples, 95)),
    ]);
    const growthOk = (result: Measured) => result.tailMedian <= Math.max(result.headMedian * 1.25, result.headMedian + 2);
    const targets: TargetRow[] = [
      {
        measure: 'overhead per loop iteration (one model and one tool activity)',
        result:
          measured
            .map(
              (result) =>
                `${formatCount(result.iterations)} iterations: median ${formatMs(median(result.overheads))}, p95 ${formatMs(percentile(result.overheads, 95))}`,
            )
            .join('; ') +
          `; first 10% ${formatMs(largest.headMedian)} → last 10% ${formatMs(largest.tailMedian)}` +
          (largest.session.completed ? '' : `; ${largest.session.outcome} after ${largest.done} iterations`),
        target: 'median ≤ 15 ms, and no growth with the iteration number',
        pass:
          measured.every((result) => result.session.completed && median(result.overheads) <= medianTargetMs) && growthOk(largest),
      },
    ];
    return {
      details: [
        markdownTable(
          [
            'iterations',
            'outcome',
            'durable run, end to end',
            'durable iteration: median',
            'p95',
            'first 10% (median)',
            'last 10% (median)',
            'in-process iteration (median)',
            'overhead: median',
            'overhead: p95',
          ],
          rows,
        ),
        markdownTable(
          [`where the time goes (${formatCount(largest.iterations)} iterations)`, 'per iteration', 'median', 'p95'],
          timingRows,
        ),
        'An iteration runs from one callModel ActivityTaskScheduled event to the next (history timestamps). Overhead = durable iteration − the in-process median. ' +
          '"No growth": the last 10% median within +25% (or +2 ms) of the first 10% median. The worker caches workflows, as in production.',
      ],
      targets,
    };
  },
};

/** The same scripted model and the same tool handler, called directly: what the loop costs without Temporal. */
async function inProcessLoop(iterations: number, workspace: string): Promise<number[]> {
  const model = new ScriptedSessions();
  model.add('in-process', echoLoopScript(iterations));
  const tools = new Map(benchTools.map((tool) => [tool.name, tool]));
  const signal = new AbortController().signal;
  const messages: Message[] = [{ role: 'user', content: 'benchmark' }];
  const times: number[] = [];
  let start = performance.now();
  for (;;) {
    const response = model.respond('in-process');
    messages.push(response.message);
    if (response.message.toolCalls.length === 0) break;
    for (const call of response.message.toolCalls) {
      const tool = tools.get(call.name)!;
      const content = await tool.handler(tool.input.parse(JSON.parse(call.arguments)), { workspace, signal });
      messages.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content, isError: false });
    }
    const now = performance.now();
    times.push(now - start);
    start = now;
  }
  return times;
}
