import type { EvalReport } from '../core/eval-types';
import { printable } from './terminal-text';

/**
 * The eval's summary as a table for the terminal, one row per candidate (the recorded baseline first):
 *
 *   candidate  score  passed  cost       worse
 *   recorded   0.50   1/2     $0.000000  -
 *   mini       1.00   2/2     $0.000120  0
 *
 * then, when the budget stopped the eval, the cases it did not run.
 */
export function evalTable(report: EvalReport): string {
  const header = ['candidate', 'score', 'passed', 'cost', 'worse'];
  const rows = report.summary.map((entry) => [
    printable(entry.candidate),
    entry.score.toFixed(2),
    `${entry.passed}/${entry.passed + entry.failed}`,
    `$${entry.costUsd.toFixed(6)}`,
    entry.candidate === 'recorded' ? '-' : String(entry.worse),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  const stopped = report.stopped
    ? [
        `stopped by the budget: ${report.stopped.notRun.length} case(s) not run (${report.stopped.notRun.map(printable).join(', ')})`,
      ]
    : [];
  return [line(header), ...rows.map(line), ...stopped].join('\n');
}
