import { CancellationScope, sleep } from '@temporalio/workflow';

/**
 * A session's idle timeout with one durable timer per timeout period, not one
 * per message. Waiting for each message with `condition(…, timeout)` starts a
 * timer and cancels it when the message comes: two commands, two events and a
 * server timer task per message (bench/NOTES.md, sessions). Here a timer runs
 * for the whole timeout; when it fires, the session has been idle that long (it
 * expires) or it has not (a message came meanwhile), and the next timer runs for
 * the time that is left. A session that gets a message every few seconds and
 * idles out after an hour starts about one timer an hour.
 */
export class IdleClock {
  /** Set once the session has waited for a message for the whole timeout. */
  expired = false;
  /** When the session began waiting (workflow time, ms); undefined while it answers. */
  private waitingSince: number | undefined;
  private timerRunning = false;

  constructor(private readonly timeoutMs: number) {}

  /** The session waits for a message from now on, for a whole timeout again. */
  startWaiting(): void {
    // A timer that ran out as a message came (in the same workflow task) does not end the wait after it.
    this.expired = false;
    this.waitingSince = Date.now();
    this.runTimer(this.timeoutMs);
  }

  /** A message (or the end) came: the session is busy until it waits again. */
  stopWaiting(): void {
    this.waitingSince = undefined;
  }

  private runTimer(ms: number): void {
    if (this.timerRunning) return;
    this.timerRunning = true;
    // Not cancellable: cancelling the run cancels what the run awaits, and nothing awaits this timer.
    void CancellationScope.nonCancellable(() => sleep(ms)).then(() => {
      this.timerRunning = false;
      // Busy: the next startWaiting starts the next timer.
      if (this.waitingSince === undefined) return;
      const left = this.waitingSince + this.timeoutMs - Date.now();
      if (left <= 0) this.expired = true;
      else this.runTimer(left);
    });
  }
}
