/** Progress goes to stderr, so stdout holds only the markdown tables. */
export function log(line: string): void {
  console.error(`[bench] ${line}`);
}
