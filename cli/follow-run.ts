import type { Client } from '@temporalio/client';
import { followStream } from '../client/follow-stream';
import { cancelledOnStop } from './cancel-on-stop';
import type { AgentEvent } from '../core/stream-events';
import type { StreamRenderer } from './stream-renderer';

/**
 * The pause between polls of a follower that shows progress lines only: each poll is an Update in the run's history,
 * so a fast tool loop followed at the text's pace would add one per event; at this pace, one per second at most.
 */
export const progressPollCooldownMs = 1_000;

/**
 * Follows a run's stream into a renderer for as long as the command wants it:
 * the one source of what `agent run` and `agent chat` show while a run works
 * (no polling of queries). From offset 0: these commands start the run (or the
 * session) themselves, and the stream keeps the whole current turn, so every
 * event, approval requests included, is seen once. A session is followed by one
 * follower from its start, so nothing of an earlier turn is shown again.
 */
export class RunFollower {
  /** Settles when following ends: the run ended, or a failure (said through `log`). Never rejects. */
  readonly done: Promise<void>;
  private readonly stopping = new AbortController();
  private over = false;
  private readonly waiting = new Set<() => void>();

  constructor(
    client: Client,
    workflowId: string,
    private readonly renderer: StreamRenderer,
    log: (line: string) => void,
    options: { showsText: boolean },
  ) {
    // Its calls carry the stop signal: stop() cancels a poll in flight, so none is left on a connection about to close
    // (a connection connect() made, which has the cancelOnStop interceptor).
    this.done = cancelledOnStop(this.stopping.signal, () =>
      followStream<AgentEvent>(client, workflowId, {
        from: 0,
        // Progress lines may come a second late; text as it is written may not (see followStream's default).
        ...(!options.showsText && { pollCooldownMs: progressPollCooldownMs }),
        onEvent: (item) => {
          renderer.handle(item.data);
          this.wake();
        },
        onPause: log,
        signal: this.stopping.signal,
      }),
    )
      .catch((error: Error) => {
        if (!this.stopping.signal.aborted) log(`stopped following the run's events: ${error.message}`);
      })
      .finally(() => {
        this.over = true;
        this.wake();
      });
  }

  /**
   * Whether the renderer has seen `count` turn ends: waits for that while the stream goes on, at most `timeoutMs`
   * (the reply of a turn can come back before the stream has told its end; it is usually a poll away).
   */
  async turnEnded(count: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.renderer.turnEnds < count && !this.over && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(wake, deadline - Date.now());
        function wake() {
          clearTimeout(timer);
          resolve();
        }
        this.waiting.add(wake);
      });
    }
    return this.renderer.turnEnds >= count;
  }

  /** Waits, at most `timeoutMs`, for the stream to end by itself (it ends with the run), then stops following. */
  async finish(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.done, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    this.stop();
  }

  /** Stops following at once: a poll in flight is cancelled, and whatever it would have brought is dropped. */
  stop(): void {
    this.stopping.abort();
  }

  private wake(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const wake of waiting) wake();
  }
}
