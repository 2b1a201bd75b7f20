/** One line of a diff: kept in both, only in the recorded answer (`-`), or only in the candidate's (`+`). */
export interface DiffLine {
  kind: ' ' | '-' | '+';
  text: string;
}

/** Past this many line pairs the diff is not computed (its table would be rows × columns): the answers are shown whole. */
export const maxDiffCells = 4_000_000;

/**
 * The line diff of two answers (a longest common subsequence of lines): what a reviewer reads to see how a candidate
 * changed the recorded answer. Undefined when the answers are too long to diff in reasonable time and memory.
 */
export function diffLines(before: string, after: string): DiffLine[] | undefined {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length * b.length > maxDiffCells) return undefined;
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..], one row at a time from the end.
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lengths[i * width + j] =
        a[i] === b[j] ? lengths[(i + 1) * width + j + 1] + 1 : Math.max(lengths[(i + 1) * width + j], lengths[i * width + j + 1]);
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: ' ', text: a[i] });
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j] >= lengths[i * width + j + 1]) lines.push({ kind: '-', text: a[i++] });
    else lines.push({ kind: '+', text: b[j++] });
  }
  while (i < a.length) lines.push({ kind: '-', text: a[i++] });
  while (j < b.length) lines.push({ kind: '+', text: b[j++] });
  return lines;
}
