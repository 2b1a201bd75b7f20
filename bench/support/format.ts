/** Markdown tables and the number formats every benchmark prints. */

export function markdownTable(header: string[], rows: string[][]): string {
  const ragged = rows.find((row) => row.length !== header.length);
  if (ragged) throw new Error(`table row has ${ragged.length} cells for ${header.length} columns: ${ragged.join(', ')}`);
  const line = (cells: string[]) => `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A measure checked against its target (the table), with the numbers that decided it. */
export interface TargetRow {
  measure: string;
  result: string;
  target: string;
  pass: boolean;
}

export function targetTable(rows: TargetRow[]): string {
  return markdownTable(
    ['measure', 'result', 'target', 'PASS/MISS'],
    rows.map((row) => [row.measure, row.result, row.target, row.pass ? 'PASS' : 'MISS']),
  );
}

export function formatBytes(bytes: number): string {
  if (bytes < 10 * 1024) return `${Math.round(bytes).toLocaleString('en-US')} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

export function formatMs(ms: number): string {
  if (Number.isNaN(ms)) return '–';
  if (ms < 1) return `${ms.toFixed(3)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  if (ms < 10_000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}
