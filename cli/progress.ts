import type { WorkflowHandle } from '@temporalio/client';
import type { PendingApproval, ProgressEvent } from '../core/result';
import { describeUsage } from './usage-text';
import { progressQuery, statusQuery } from '../workflows/definitions';

const pollIntervalMs = 400;
const pollDeadlineMs = 3_000;

export function describeEvent(event: ProgressEvent): string {
  switch (event.kind) {
    case 'model_call': {
      const asked = event.toolCalls.length ? `asked for ${event.toolCalls.join(', ')}` : 'answered';
      // That the model thought shows as tokens, never as its text; a provider that does not count them gets a word.
      const thought = !event.usage.reasoningTokens && event.thought ? 'thought; ' : '';
      return `iteration ${event.iteration} · ${event.model} ${asked} (${thought}${describeUsage(event.usage)})`;
    }
    case 'tool_done':
      return `  ${event.isError ? '✗' : '✓'} ${event.summary}`;
    case 'turn_failed':
      return `turn failed and was rolled back: ${event.error}`;
    case 'handoff':
      return `handed over from ${event.from} to ${event.to}`;
    default: {
      const exhaustive: never = event;
      return JSON.stringify(exhaustive);
    }
  }
}


/** Prints a run's progress by polling the progress query; remembers what it printed across calls (and runs). */
export class ProgressFollower {
  private seen = 0;

  constructor(
    private readonly handle: WorkflowHandle,
    private readonly print: (line: string) => void,
    /** Told of the tool calls waiting for approval at every poll (a prompt for them, say). */
    private readonly onApprovals?: (pending: PendingApproval[]) => Promise<void>,
  ) {}

  /** Prints progress while `done` is pending, then whatever happened since the last poll. */
  async follow(done: Promise<unknown>): Promise<void> {
    let finished = false;
    void done.finally(() => (finished = true)).catch(() => {});
    while (!finished) {
      await Promise.race([done.catch(() => {}), new Promise((resolve) => setTimeout(resolve, pollIntervalMs))]);
      await this.poll();
    }
  }

  private async poll(): Promise<void> {
    // Progress is best effort: a query no worker answers (the run waits for one) must not hold the CLI up.
    const events = await this.handle.client.connection
      .withDeadline(Date.now() + pollDeadlineMs, () => this.handle.query(progressQuery, this.seen))
      .catch((): ProgressEvent[] => []);
    for (const event of events) this.print(describeEvent(event));
    this.seen += events.length;
    if (!this.onApprovals) return;
    const status = await this.handle.client.connection
      .withDeadline(Date.now() + pollDeadlineMs, () => this.handle.query(statusQuery))
      .catch(() => undefined);
    if (status?.pendingApprovals.length) await this.onApprovals(status.pendingApprovals);
  }
}
