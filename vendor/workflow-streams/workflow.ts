/**
 * Workflow-side entrypoint for `@temporalio/workflow-streams`.
 *
 * Instantiate `WorkflowStream` once at the start of your workflow function; the
 * constructor registers the workflow stream signal, update, and query handlers on
 * the current workflow via `setHandler`.
 *
 * For workflows that support continue-as-new, include a
 * `WorkflowStreamState | undefined` field on the workflow input and pass it as
 * `priorState` — it is `undefined` on fresh starts and carries
 * accumulated state on continue-as-new.
 *
 * Both workflow-side `WorkflowStream.publish` and client-side
 * `WorkflowStreamClient.publish` use the default payload converter for per-item
 * `Payload` construction. The codec chain (encryption, PII-redaction,
 * compression) is NOT applied per item on either side — it runs once at
 * the envelope level when Temporal's SDK encodes the signal/update that
 * carries the batch.
 *
 * This entrypoint exports only the workflow-safe surface so that it can be
 * pulled into a workflow bundle. The client-side surface lives at
 * `@temporalio/workflow-streams/client` and pulls in `crypto`,
 * `@temporalio/activity`, and `@temporalio/client` — none of which can be
 * resolved in the workflow sandbox.
 *
 * @module
 */

import {
  allHandlersFinished,
  condition,
  continueAsNew as workflowContinueAsNew,
  defineSignal,
  defineUpdate,
  defineQuery,
  setHandler,
  defaultPayloadConverter,
} from '@temporalio/workflow';
import { ApplicationFailure, type Payload, type Workflow } from '@temporalio/common';
import type { Duration } from '@temporalio/common/lib/time';
import { msToNumber } from '@temporalio/common/lib/time';
import { decodePayloadWire, encodePayloadProto, encodePayloadWire, encodeBase64 } from './codec';
import type { PollInput, PollResult, WorkflowStreamState, PublishInput, WorkflowStreamWireItem } from './types';
import { WorkflowTopicHandle } from './topic-handle';

export type {
  WorkflowStreamItem,
  PublishEntry,
  PublishInput,
  PollInput,
  PollResult,
  WorkflowStreamState,
} from './types';
export {
  encodeBase64,
  decodeBase64,
  encodePayloadProto,
  decodePayloadProto,
  encodePayloadWire,
  decodePayloadWire,
} from './codec';
export { WorkflowTopicHandle } from './topic-handle';

const BINARY_PLAIN_ENCODING = new TextEncoder().encode('binary/plain');

/**
 * Cross-realm-safe Uint8Array check.
 *
 * The workflow sandbox gets its `TextEncoder` from `node:util`, which
 * returns a `Uint8Array` tagged to the host realm — so `value instanceof
 * Uint8Array` is false against the sandbox's own `Uint8Array` global.
 * `Object.prototype.toString` crosses realm boundaries reliably.
 */
function isUint8ArrayLike(value: unknown): value is ArrayLike<number> {
  return value != null && typeof value === 'object' && Object.prototype.toString.call(value) === '[object Uint8Array]';
}

// Fixed handler names for cross-language interop
export const workflowStreamPublishSignal = defineSignal<[PublishInput]>('__temporal_workflow_stream_publish');
export const workflowStreamPollUpdate = defineUpdate<PollResult, [PollInput]>('__temporal_workflow_stream_poll');
export const workflowStreamOffsetQuery = defineQuery<number>('__temporal_workflow_stream_offset');

const MAX_POLL_RESPONSE_BYTES = 1_000_000;

/** Approximate poll-response contribution of a single encoded payload. */
function payloadWireSize(encoded: string, topic: string): number {
  // `encoded` is already base64 (the on-wire representation).
  return encoded.length + topic.length;
}

/** Internal log entry: stores decoded Payload for user-facing APIs. */
interface InternalLogEntry {
  topic: string;
  payload: Payload;
}

/** Type guard for Payload — same logic as client.ts's isPayload. */
function isPayload(value: unknown): value is Payload {
  if (value === null || typeof value !== 'object') return false;
  const v = value as { metadata?: unknown };
  return (
    'metadata' in v &&
    v.metadata != null &&
    typeof v.metadata === 'object' &&
    !Array.isArray(v.metadata) &&
    Object.values(v.metadata).every((x) => isUint8ArrayLike(x))
  );
}

/**
 * Workflow-side stream object — append-only log with publish/poll handlers.
 *
 * Construct once at the start of your workflow function; the constructor
 * registers the workflow stream signal, update, and query handlers on the current
 * workflow.
 *
 * Registered handlers:
 *
 * - `__temporal_workflow_stream_publish` signal — external publish with dedup
 * - `__temporal_workflow_stream_poll` update — long-poll subscription
 * - `__temporal_workflow_stream_offset` query — current log length
 *
 * For continue-as-new, thread a `WorkflowStreamState | undefined` field through
 * the workflow input and pass it as `priorState`.
 */
export class WorkflowStream {
  private log: InternalLogEntry[];
  private baseOffset: number;
  private readonly publisherSequences: Record<string, number>;
  private readonly publisherLastSeen: Record<string, number>;
  private draining = false;
  private readonly topicHandles = new Map<string, WorkflowTopicHandle<unknown>>();

  constructor(priorState?: WorkflowStreamState) {
    // Note: sdk-python guards against a second `WorkflowStream(...)` call on the
    // same workflow by checking `workflow.get_signal_handler(...)`. The
    // TypeScript workflow runtime does not expose that inspection API,
    // and `reuseV8Context` shares module-level state across workflow
    // executions — so a naive module-level flag would either fire
    // spuriously or miss real duplicates. Constructing `WorkflowStream` twice in
    // the same workflow silently replaces the handlers; users should
    // construct once at the top of the workflow function.
    this.log = priorState?.log
      ? priorState.log.map((item) => ({
          topic: item.topic,
          payload: decodePayloadWire(item.data),
        }))
      : [];
    this.baseOffset = priorState?.base_offset ?? 0;
    this.publisherSequences = priorState?.publisher_sequences ? { ...priorState.publisher_sequences } : {};
    this.publisherLastSeen = priorState?.publisher_last_seen ? { ...priorState.publisher_last_seen } : {};

    setHandler(workflowStreamPublishSignal, (input: PublishInput) => this.onPublish(input));
    setHandler(workflowStreamPollUpdate, (input: PollInput) => this.onPoll(input), {
      validator: (_input: PollInput) => {
        if (this.draining) {
          // Well-known type so a subscriber recognizes the rollover-in-progress
          // and retries until its poll lands on the successor run, rather than
          // surfacing the rejection as an error.
          throw ApplicationFailure.create({
            message: 'Workflow is draining for continue-as-new',
            type: 'StreamDraining',
            nonRetryable: true,
          });
        }
      },
    });
    setHandler(workflowStreamOffsetQuery, () => this.baseOffset + this.log.length);
  }

  /**
   * Get a typed handle for publishing to ``name``.
   *
   * Repeated calls with the same name return the same handle instance.
   * The type parameter ``T`` is purely a compile-time annotation — see
   * the module note in {@link TopicHandle} for the difference from
   * sdk-python's runtime type-uniformity check.
   */
  topic<T = unknown>(name: string): WorkflowTopicHandle<T> {
    let handle = this.topicHandles.get(name);
    if (handle === undefined) {
      handle = new WorkflowTopicHandle<T>(name, (topic, value) => this.publishToTopic(topic, value));
      this.topicHandles.set(name, handle as WorkflowTopicHandle<unknown>);
    }
    return handle as WorkflowTopicHandle<T>;
  }

  private publishToTopic(topic: string, value: unknown): void {
    let payload: Payload;
    if (isPayload(value)) {
      payload = value;
    } else if (isUint8ArrayLike(value)) {
      // Bypass defaultPayloadConverter for cross-realm Uint8Arrays: the
      // BinaryPayloadConverter uses `instanceof Uint8Array`, which fails
      // against a Uint8Array produced by Node's built-in `TextEncoder`
      // (host realm) when evaluated in the workflow sandbox. Construct
      // the equivalent binary/plain Payload directly.
      payload = {
        metadata: { encoding: BINARY_PLAIN_ENCODING },
        data: new Uint8Array(value),
      };
    } else {
      payload = defaultPayloadConverter.toPayload(value);
    }
    this.log.push({ topic, payload });
  }

  /** Unblock all waiting poll handlers and reject new polls for CAN. */
  detachPollers(): void {
    this.draining = true;
  }

  /**
   * Return a serializable snapshot of workflow stream state for continue-as-new.
   * Prunes publisher dedup entries older than `publisherTtl`. Defaults
   * to 15 minutes.
   */
  getState(publisherTtl: Duration = '15 minutes'): WorkflowStreamState {
    const ttlSeconds = msToNumber(publisherTtl) / 1000;
    const now = Date.now() / 1000;
    const activeSeqs: Record<string, number> = {};
    const activeSeen: Record<string, number> = {};
    for (const pid of Object.keys(this.publisherSequences)) {
      // Missing timestamps are pruned (matches sdk-python). The signal
      // handler always sets both maps together, so absence indicates a
      // malformed snapshot rather than a supported upgrade path.
      const ts = this.publisherLastSeen[pid] ?? 0;
      if (now - ts < ttlSeconds) {
        activeSeqs[pid] = this.publisherSequences[pid] ?? 0;
        activeSeen[pid] = ts;
      }
    }
    return {
      // Per-item offset is re-derivable from base_offset + index on reload,
      // so we leave it at 0 here.
      log: this.log.map((entry) => ({
        topic: entry.topic,
        data: encodePayloadWire(entry.payload),
        offset: 0,
      })),
      base_offset: this.baseOffset,
      publisher_sequences: activeSeqs,
      publisher_last_seen: activeSeen,
    };
  }

  /**
   * Drain, wait for in-flight handlers, then `continueAsNew` with built args.
   *
   * Replaces the recipe `detachPollers()` → `condition(allHandlersFinished)` →
   * `continueAsNew(...)` for the common case where the only thing that
   * varies across CAN boundaries is the workflow's own arguments.
   *
   * `buildArgs` is invoked *after* pollers detach, with the resulting
   * `WorkflowStreamState` as its single argument, and must return the positional
   * argument tuple for the new run.
   *
   * @example
   * ```typescript
   * await stream.continueAsNew<typeof myWorkflow>((state) => [{
   *   itemsProcessed,
   *   streamState: state,
   * }]);
   * ```
   *
   * @param buildArgs Receives the post-detach workflow stream state and returns the
   *   positional args for the new run.
   * @param options.publisherTtl Forwarded to `getState`.
   *
   * Does not return; `continueAsNew` rejects with an internal exception
   * that the SDK uses to close the run.
   */
  async continueAsNew<F extends Workflow>(
    buildArgs: (state: WorkflowStreamState) => Parameters<F>,
    options?: { publisherTtl?: Duration }
  ): Promise<never> {
    this.detachPollers();
    await condition(allHandlersFinished);
    return workflowContinueAsNew<F>(...buildArgs(this.getState(options?.publisherTtl)));
  }

  /**
   * Discard log entries before upToOffset.
   * After truncation, polls requesting an offset before the new base
   * will receive an error.
   *
   * Raises `ApplicationFailure` with type `'TruncateOutOfRange'` and
   * `nonRetryable: true` when the requested offset is past the end of
   * the log. Mirrors how `onPoll` reports `'TruncatedOffset'`: an update
   * handler invoking `truncate` surfaces the error to the caller without
   * failing the workflow task.
   */
  truncate(upToOffset: number): void {
    const logIndex = upToOffset - this.baseOffset;
    if (logIndex <= 0) return;
    if (logIndex > this.log.length) {
      throw ApplicationFailure.create({
        message: `Cannot truncate to offset ${upToOffset}: only ${this.baseOffset + this.log.length} items exist`,
        type: 'TruncateOutOfRange',
        nonRetryable: true,
      });
    }
    this.log.splice(0, logIndex);
    this.baseOffset = upToOffset;
  }

  private onPublish(input: PublishInput): void {
    if (input.publisher_id) {
      const lastSeq = this.publisherSequences[input.publisher_id] ?? 0;
      if (input.sequence <= lastSeq) {
        return; // duplicate — skip
      }
      this.publisherSequences[input.publisher_id] = input.sequence;
      this.publisherLastSeen[input.publisher_id] = Date.now() / 1000; // seconds
    }
    for (const entry of input.items) {
      this.log.push({ topic: entry.topic, payload: decodePayloadWire(entry.data) });
    }
  }

  private async onPoll(input: PollInput): Promise<PollResult> {
    const truncatedFailure = () =>
      ApplicationFailure.create({
        message:
          `Requested offset ${input.from_offset} has been truncated. ` + `Current base offset is ${this.baseOffset}.`,
        type: 'TruncatedOffset',
        nonRetryable: true,
      });
    if (input.from_offset !== 0 && input.from_offset - this.baseOffset < 0) {
      throw truncatedFailure();
    }
    // Re-derive logOffset after the wait: truncate() can advance baseOffset
    // while this poll is parked, so a value captured before condition()
    // would be stale. The predicate also wakes on a truncation that moves
    // baseOffset past from_offset, even if that leaves the log empty —
    // otherwise such a truncate() would never satisfy `log.length > ...`
    // and the poll would hang instead of failing with TruncatedOffset.
    await condition(
      () =>
        this.draining ||
        (input.from_offset !== 0 && input.from_offset - this.baseOffset < 0) ||
        this.log.length > Math.max(input.from_offset - this.baseOffset, 0)
    );
    let logOffset = input.from_offset - this.baseOffset;
    if (logOffset < 0) {
      if (input.from_offset === 0) {
        // "From the beginning" — start at whatever is available.
        logOffset = 0;
      } else {
        throw truncatedFailure();
      }
    }
    const allNew = this.log.slice(logOffset);

    // Build [globalOffset, entry] candidates, filtering by topic if requested.
    const topicSet = input.topics.length > 0 ? new Set(input.topics) : null;
    const candidates: Array<[number, InternalLogEntry]> = [];
    for (let i = 0; i < allNew.length; i++) {
      const entry = allNew[i]!;
      if (topicSet !== null && !topicSet.has(entry.topic)) continue;
      candidates.push([this.baseOffset + logOffset + i, entry]);
    }

    // Cap response size to ~1MB of estimated wire bytes.
    const wireItems: WorkflowStreamWireItem[] = [];
    let size = 0;
    let moreReady = false;
    let nextOffset = this.baseOffset + this.log.length;
    for (const [off, entry] of candidates) {
      const encoded = encodeBase64(encodePayloadProto(entry.payload));
      const itemSize = payloadWireSize(encoded, entry.topic);
      if (size + itemSize > MAX_POLL_RESPONSE_BYTES && wireItems.length > 0) {
        // Resume from this item on the next poll.
        nextOffset = off;
        moreReady = true;
        break;
      }
      size += itemSize;
      wireItems.push({ topic: entry.topic, data: encoded, offset: off });
    }

    return {
      items: wireItems,
      next_offset: nextOffset,
      more_ready: moreReady,
    };
  }
}
