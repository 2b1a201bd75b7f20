export const interrupted = Symbol('interrupted');

/**
 * Listens for Ctrl-C (SIGINT) and SIGTERM from the moment it is made until
 * `close()`. Make it before telling anyone the process is ready (a listening
 * address, a started run): whoever reads that line may signal at once, and a
 * signal with no listener yet kills the process with no cleanup and no exit code.
 */
export class InterruptListener {
  readonly signalled: Promise<typeof interrupted>;
  private onSignal: () => void = () => {};

  constructor() {
    this.signalled = new Promise((resolve) => {
      this.onSignal = () => resolve(interrupted);
      process.once('SIGINT', this.onSignal);
      process.once('SIGTERM', this.onSignal);
    });
  }

  /** Resolves with `promise`, or with `interrupted` as soon as a signal comes (or came). */
  race<T>(promise: Promise<T>): Promise<T | typeof interrupted> {
    return Promise.race([promise, this.signalled]);
  }

  close(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}

/**
 * Resolves with `promise`, or with `interrupted` as soon as the user presses
 * Ctrl-C or the process is asked to stop. The run itself is durable: stopping
 * the CLI only stops following it.
 */
export function untilInterrupted<T>(promise: Promise<T>, listener = new InterruptListener()): Promise<T | typeof interrupted> {
  return listener.race(promise).finally(() => listener.close());
}
