import type { Context } from '@temporalio/activity';
import { WorkflowStreamClient, type TopicHandle } from '@temporalio/workflow-streams/client';
import { agentStreamTopic, textBatchMs, type AgentEvent } from '../../core/stream-events';

/**
 * Publishes one model call's text (and readable thinking, as `thinking` events) to the stream of the workflow that
 * runs the activity, as it is written: the pieces that arrive within `textBatchMs` go out
 * as one `text` event in one signal, so history grows by a signal per batch, not
 * per token. A retried attempt first says `reset`, so subscribers drop the text
 * the failed attempt had written. Publishing is best effort: a stream that cannot
 * be reached never fails the model call, whose reply carries the whole text anyway.
 */
export class TextPublisher {
  private readonly client: WorkflowStreamClient;
  private readonly topic: TopicHandle<AgentEvent>;
  private pending = '';
  /** What `pending` is: the answer's text, or the model's thinking (since 0.3), each published as its own event type. */
  private pendingKind: 'text' | 'thinking' = 'text';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly call: string,
    private readonly context: Context,
  ) {
    this.client = WorkflowStreamClient.fromWithinActivity({ batchInterval: textBatchMs, maxRetryDuration: '30 seconds' });
    this.topic = this.client.topic<AgentEvent>(agentStreamTopic);
    const attempt = context.info.attempt;
    if (attempt > 1) this.topic.publish({ type: 'reset', call, attempt }, { forceFlush: true });
  }

  text(piece: string): void {
    this.add('text', piece);
  }

  /** The model's readable thinking as it is written (never redacted thinking: providers do not report it). */
  thinking(piece: string): void {
    this.add('thinking', piece);
  }

  private add(kind: 'text' | 'thinking', piece: string): void {
    // Thinking and text alternate in one reply (interleaved thinking): a change of kind closes what was gathered as
    // its own event, in order, but sends nothing yet. The batch still goes out as one signal when the timer fires, so
    // a model that alternates on every token costs no more signals (and history events) than plain text does.
    if (kind !== this.pendingKind) this.publishPending(false);
    this.pendingKind = kind;
    this.pending += piece;
    this.timer ??= setTimeout(() => this.flushText(), textBatchMs);
  }

  /** Sends what is left and waits until the workflow has it: the call's reply must come after its text. */
  async close(): Promise<void> {
    this.flushText();
    try {
      await this.client[Symbol.asyncDispose]();
    } catch (error) {
      this.context.log.warn(`could not publish the model call's text to the run's stream: ${(error as Error).message}`);
    }
  }

  private flushText(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.publishPending(true);
  }

  /** Adds what was gathered to the client's buffer; `forceFlush` sends the buffer (one signal) now. */
  private publishPending(forceFlush: boolean): void {
    if (!this.pending) return;
    this.topic.publish({ type: this.pendingKind, call: this.call, text: this.pending }, { forceFlush });
    this.pending = '';
  }
}
