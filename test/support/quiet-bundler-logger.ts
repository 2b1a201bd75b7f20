/** A logger for bundleWorkflowCode that shows only errors: webpack's progress and warnings would drown test output. */
export const quietBundlerLogger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  log: () => {},
  warn: () => {},
  error: (message: string) => console.error(message),
};
