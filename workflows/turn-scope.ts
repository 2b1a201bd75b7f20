import { CancellationScope, isCancellation } from '@temporalio/workflow';

/**
 * The cancellation scope of the turn in progress: `interrupt` cancels it, and
 * the turn then ends `interrupted` while the session goes on. A cancellation
 * that comes from outside (the run cancelled) goes on up instead.
 */
export class TurnScope {
  /** The scope turns run in: kept from turn to turn until an interrupt cancels it (or turnsPerScope ran in it). */
  private scope: CancellationScope | undefined;
  private turnsInScope = 0;
  private running = false;
  private interrupted = false;

  get inProgress(): boolean {
    return this.running;
  }

  interrupt(): void {
    if (!this.running) return;
    this.interrupted = true;
    this.scope?.cancel();
  }

  /** Why calls cut short by a cancellation were not run, in the result each of them gets. */
  cancelledBecause(): string {
    return this.interrupted ? 'the turn was interrupted' : 'the run was cancelled';
  }

  /**
   * Runs a turn in the turn scope; an interrupt makes it end with `whenInterrupted()` instead. With `then`, not
   * async/await, and in a scope kept from turn to turn rather than a new one each turn (three promises to make): every
   * promise a workflow makes costs a stack trace in the SDK's promise hook, live and at every replay, and a session
   * runs a turn per message (bench/NOTES.md). An interrupt cancels the scope, so the next turn gets a new one; so does
   * every turnsPerScope-th turn, since each activity leaves a cancellation handler on its scope until the scope goes.
   */
  run<T>(turn: () => Promise<T>, whenInterrupted: () => T): Promise<T> {
    if (!this.scope || this.turnsInScope >= turnsPerScope) {
      this.scope = new CancellationScope();
      this.turnsInScope = 0;
    }
    const scope = this.scope;
    this.turnsInScope++;
    this.running = true;
    const ended = () => {
      this.running = false;
      // A cancelled scope cancels at once whatever starts in it: the next turn needs another.
      if (this.interrupted || scope.consideredCancelled) this.scope = undefined;
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

/** Turns that share one scope at most: a bound on the cancellation handlers its activities leave on it. */
const turnsPerScope = 32;
