export const interrupted = Symbol('interrupted');

/**
 * Resolves with `promise`, or with `interrupted` as soon as the user presses
 * Ctrl-C (SIGINT) or the process is asked to stop (SIGTERM). The run itself is
 * durable: stopping the CLI only stops following it.
 */
export function untilInterrupted<T>(promise: Promise<T>): Promise<T | typeof interrupted> {
  let onSignal: () => void = () => {};
  const signalled = new Promise<typeof interrupted>((resolve) => {
    onSignal = () => resolve(interrupted);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  return Promise.race([promise, signalled]).finally(() => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  });
}
