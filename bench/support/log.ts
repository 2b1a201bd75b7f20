/** Progress goes to stderr, so stdout holds only the markdown tables. */
export function log(line: string): void {
  console.error(`[bench] ${line}`);
}

/** For the workflow bundler and workers: only warnings and errors, to stderr. */
export const quietLogger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  log: () => {},
  warn: (message: string) => log(message),
  error: (message: string) => log(message),
};
