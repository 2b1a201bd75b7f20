import type { AgentEvent } from '../../core/stream-events';
import { describeWait } from '../../workflows/run-status';

/** What a request handler of either revision gives a call to send its progress with. */
export interface ProgressExtra {
  _meta?: { progressToken?: string | number };
  sendNotification(notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message: string };
  }): Promise<void>;
}

/** How long a call's result waits after its last progress notification was sent (see CallProgress.sent). */
const trailingProgressPauseMs = 50;

/**
 * MCP progress notifications for one tool call, when the client asked for them (a `progressToken` in the request's
 * `_meta`): one per line of the run's story, each with a higher `progress`, as the protocol requires. Sending is
 * best effort: a client that went away loses its notifications, never the run.
 */
export class CallProgress {
  private count = 0;
  private countBeforePause = 0;
  private sending: Promise<void> = Promise.resolve();
  private readonly token: string | number | undefined;

  constructor(private readonly extra: ProgressExtra) {
    this.token = extra._meta?.progressToken;
  }

  say(message: string): void {
    if (this.token === undefined) return;
    this.count += 1;
    const sent = this.extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: this.token, progress: this.count, message },
      })
      .catch(() => undefined);
    this.sending = Promise.all([this.sending, sent]).then(() => undefined);
  }

  /**
   * Resolves once every notification said so far has been sent, and a moment more: the call's result waits for it.
   * Both SDKs' clients stop listening for a request's progress when its result arrives, and they hand a notification
   * to its listener a microtask after reading it but take a result at once. A last notification read in one chunk
   * with the result is therefore dropped, though it came first on the wire. The pause puts the result in a later
   * read, unless the client's event loop is blocked longer than that.
   */
  async sent(): Promise<void> {
    await this.sending;
    if (this.count === this.countBeforePause) return;
    this.countBeforePause = this.count;
    await new Promise((resolve) => setTimeout(resolve, trailingProgressPauseMs));
  }

  event(event: AgentEvent): void {
    const message = progressMessage(event);
    if (message !== undefined) this.say(message);
  }
}

/**
 * One event of the run's stream in a few words (the vocabulary `agent watch` renders: core/stream-events.ts), or
 * nothing for the events a person does not need to see go by (streamed text, thinking, retries' resets).
 */
export function progressMessage(event: AgentEvent): string | undefined {
  switch (event.type) {
    case 'turn_start':
      return `turn ${event.turn} started${event.agent ? ` (${event.agent})` : ''}`;
    case 'reply':
      return event.toolCalls.length > 0
        ? `model answered${event.iteration ? ` (iteration ${event.iteration})` : ''}: calling ${event.toolCalls.join(', ')}`
        : `model answered${event.iteration ? ` (iteration ${event.iteration})` : ''}`;
    case 'tool_start':
      return `running ${event.summary}`;
    case 'tool_result':
      return `${event.isError ? 'failed' : 'done'}: ${event.summary}`;
    case 'approval_requested':
      return `waiting for approval: ${event.summary}`;
    case 'approval_decided':
      return `${event.approved ? 'approved' : 'denied'}: call ${event.id}`;
    case 'handoff':
      return `handed over from ${event.from} to ${event.to}`;
    case 'waiting':
      return describeWait(event);
    case 'model_retry':
      return `model call failed (${event.error}); attempt ${event.attempt + 1} follows`;
    case 'steered':
      return `steering message taken after model call ${event.iteration}`;
    case 'turn_end':
      return `turn ${event.turn} ended: ${event.status}${event.guardrail ? ` (guardrail "${event.guardrail.name}": ${event.guardrail.reason})` : ''}`;
    // Text as it is written: no message.
    case 'text':
    case 'thinking':
    case 'reset':
      return undefined;
    default: {
      // A kind of event this code predates: a line of its own type, so nothing goes unsaid.
      const exhaustive: never = event;
      return (exhaustive as { type: string }).type;
    }
  }
}
