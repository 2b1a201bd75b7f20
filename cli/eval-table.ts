import type { EvalReport } from '../core/eval-types';
import { printable } from './terminal-text';

/**
 * The eval's summary as a table for the terminal, one row per candidate (the recorded baseline first):
 *
 *   candidate  score  passed  cost       worse
 *   recorded   0.50   1/2     $0.000000  -
 *   mini       1.00   2/2     $0.000120  0
 *
 * (with --repeat, the spread of the runs and pass@1 and pass@N, each the mean over the cases),
 * then, when the budget stopped the eval, the cases it did not run and the pairs it cut (never scored).
 */
export function evalTable(report: EvalReport): string {
  // With --repeat: the spread of each case's runs and pass@1 and pass@N, each the mean over the cases.
  const depth = Math.max(0, ...report.summary.map((entry) => entry.repeats?.passAtK.length ?? 0));
  const repeatHeader = depth > 1 ? ['spread', 'pass@1', `pass@${depth}`] : [];
  const header = ['candidate', 'score', 'passed', 'cost', 'worse', ...repeatHeader];
  const rows = report.summary.map((entry) => [
    printable(entry.candidate),
    entry.score.toFixed(2),
    `${entry.passed}/${entry.passed + entry.failed}`,
    `$${entry.costUsd.toFixed(6)}`,
    entry.candidate === 'recorded' ? '-' : String(entry.worse),
    ...(depth > 1
      ? entry.repeats
        ? [
            `±${entry.repeats.stdev.toFixed(2)}`,
            entry.repeats.passAtK[0].toFixed(2),
            (entry.repeats.passAtK.at(-1) ?? 0).toFixed(2),
          ]
        : ['-', '-', '-']
      : []),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  const cut = report.stopped?.cut ?? [];
  const stopped = report.stopped
    ? [
        `stopped by the budget: ${report.stopped.notRun.length} case(s) not run (${report.stopped.notRun.map(printable).join(', ')})` +
          (cut.length > 0
            ? `; ${cut.length} pair(s) cut mid-way, not scored (${cut.map((pair) => printable(`${pair.case} · ${pair.candidate}`)).join(', ')})`
            : ''),
      ]
    : [];
  const compared = report.compared
    ? [report.compared.onlyInFirst, report.compared.onlyInSecond]
        .map((ids, index) =>
          ids.length > 0 ? `left out, only in ${printable(report.compared!.evals[index])}: ${ids.map(printable).join(', ')}` : '',
        )
        .filter(Boolean)
    : [];
  return [line(header), ...rows.map(line), ...stopped, ...compared].join('\n');
}
