import { benchText, textChunkChars } from './support/bench-tools';
import type { Benchmark } from './support/benchmark';
import { formatBytes, formatCount, formatMs, markdownTable, type TargetRow } from './support/format';
import { eventBytes, modelCalls, type ModelCallRecord } from './support/history';
import { log } from './support/log';
import { toolLoop } from './support/load-model';
import { runSession } from './support/session';

const maxRunBytes = 4 * 1024 * 1024;
const flatTolerance = 0.2;

/**
 * (a) How many history bytes each model call adds as the conversation grows.
 * One session of 1,000 turns; each turn the model asks for bench_text, which
 * returns ~2 KB of new text. Sizes are the protobuf encodings of the real
 * events of every run of the workflow id, so continue-as-new is measured as it
 * happens; turns 10, 50, 200 and 1,000 of the same session are the samples.
 */
export const historyBytes: Benchmark = {
  name: 'history-bytes',
  title: 'History bytes per model call against conversation length',
  async run({ environment, quick }) {
    const sampleTurns = quick ? [10, 50, 100] : [10, 50, 200, 1000];
    const turns = sampleTurns.at(-1)!;
    log(`history-bytes: a ${turns}-turn session with ~2 KB of new text per turn...`);
    const session = await runSession(environment, {
      name: `history-${turns}`,
      script: toolLoop(turns, benchText.name, (turn) => ({ turn })),
      tools: [benchText.name],
      maxIterations: turns + 100,
      deadlineMs: 60_000 + 500 * turns,
    });
    const calls = modelCalls(session.runs);
    const toolTurnsDone = Math.min(turns, calls.length);
    const largestRunBytes = Math.max(...session.runs.map((run) => run.bytes));
    const totalBytes = session.runs.reduce((total, run) => total + run.bytes, 0);

    const reference = calls[sampleTurns[0] - 1];
    const deviation = (call: ModelCallRecord) => (reference ? call.callBytes / reference.callBytes - 1 : Number.NaN);
    const sampleRows = sampleTurns.map((turn) => {
      const call = calls[turn - 1];
      if (!call) return [formatCount(turn), 'not reached', '–', '–', '–', '–'];
      return [
        formatCount(turn),
        formatBytes(call.callBytes),
        formatBytes(call.turnBytes),
        formatPercent(deviation(call)),
        formatBytes(call.bytesBefore + call.turnBytes),
        String(call.runIndex + 1),
      ];
    });
    const runRows = session.runs.map((run, index) => {
      const runCalls = calls.filter((call) => call.runIndex === index);
      const started = run.events[0];
      return [
        String(index + 1),
        runCalls.length ? `${runCalls[0].turn}–${runCalls.at(-1)!.turn}` : '–',
        formatCount(run.events.length),
        formatBytes(run.bytes),
        started ? formatBytes(eventBytes(started)) : '–',
        formatBytes(run.externalBytes),
      ];
    });

    const outcome = session.completed ? 'completed' : `${session.outcome}, after ${toolTurnsDone} turns`;
    const targets: TargetRow[] = [
      {
        measure: `a ${formatCount(turns)}-turn session, ~2 KB of new text per turn`,
        result: `${outcome} in ${formatMs(session.wallMs)}; ${session.runs.length} run(s); largest run ${formatBytes(largestRunBytes)}`,
        target: "finishes under one workflow id; no run's history over 4 MB",
        pass: session.completed && largestRunBytes <= maxRunBytes,
      },
      {
        measure: 'bytes added per model call',
        result: sampleTurns
          .map((turn) => `turn ${formatCount(turn)}: ${calls[turn - 1] ? formatBytes(calls[turn - 1].callBytes) : 'not reached'}`)
          .join(', '),
        target: `flat within ±20% from turn 10 to turn ${formatCount(turns)}`,
        pass: sampleTurns.every((turn) => calls[turn - 1] !== undefined && Math.abs(deviation(calls[turn - 1])) <= flatTolerance),
      },
    ];

    return {
      details: [
        `One session of ${formatCount(turns)} tool turns: ${outcome}; ${formatCount(session.runs.length)} run(s) under workflow id ` +
          `\`${session.workflowId}\`, ${formatBytes(totalBytes)} of history in all.`,
        markdownTable(
          [
            'turn',
            'model call events (scheduled, started, completed)',
            'whole turn (every event until the next model call)',
            'model call vs turn 10',
            'history so far, all runs',
            'run',
          ],
          sampleRows,
        ),
        markdownTable(
          [
            'run',
            'model calls',
            'events',
            'history size',
            'its WorkflowExecutionStarted event (input and carried state)',
            'payloads in external storage',
          ],
          runRows,
        ),
        `Each turn adds ${formatCount(textChunkChars)} characters of tool output. "Model call events" are the callModel activity's own events; ` +
          '"whole turn" adds the workflow tasks and the tool activity. Event sizes are their protobuf encodings; a payload the data converter ' +
          'moved to external storage (over 256 KB) counts as its claim in history, and its size shows in the last column.',
      ],
      targets,
    };
  },
};

function formatPercent(fraction: number): string {
  if (Number.isNaN(fraction)) return '–';
  const percent = Math.round(fraction * 100);
  return `${percent >= 0 ? '+' : ''}${formatCount(percent)}%`;
}
