/**
 * Tool names match exactly, case included (`Write_File` is not `write_file`):
 * a refused name that differs from a known one only in case is pointed out.
 */
export function didYouMean(name: string, known: Iterable<string>): string {
  const wanted = name.toLowerCase();
  for (const candidate of known) if (candidate.toLowerCase() === wanted) return ` (did you mean ${candidate}?)`;
  return '';
}
