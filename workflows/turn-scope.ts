import { CancellationScope, isCancellation } from '@temporalio/workflow';

/**
 * The cancellation scope of the turn in progress: `interrupt` cancels it, and
 * the turn then ends `interrupted` while the session goes on. A cancellation
 * that comes from outside (the run cancelled) goes on up instead.
 */
export class TurnScope {
  private scope: CancellationScope | undefined;
  private interrupted = false;

  get inProgress(): boolean {
    return this.scope !== undefined;
  }

  interrupt(): void {
    this.interrupted = true;
    this.scope?.cancel();
  }

  /** Why calls cut short by a cancellation were not run, in the result each of them gets. */
  cancelledBecause(): string {
    return this.interrupted ? 'the turn was interrupted' : 'the run was cancelled';
  }

  /**
   * Runs a turn in a scope of its own; an interrupt makes it end with `whenInterrupted()` instead. With `then`, not
   * async/await: every promise a workflow makes costs a stack trace in the SDK's promise hook, live and at every
   * replay, and a session runs a turn per message (bench/NOTES.md).
   */
  run<T>(turn: () => Promise<T>, whenInterrupted: () => T): Promise<T> {
    const scope = new CancellationScope();
    this.scope = scope;
    const ended = () => {
      this.scope = undefined;
      this.interrupted = false;
    };
    return scope.run(turn).then(
      (value) => {
        ended();
        return value;
      },
      (error: unknown) => {
        try {
          if (!(this.interrupted && isCancellation(error))) throw error;
          return whenInterrupted();
        } finally {
          ended();
        }
      },
    );
  }
}
