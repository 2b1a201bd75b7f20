import type { PendingApproval } from '../core/result';
import type { AgentEvent } from '../core/stream-events';

/**
 * One response's life over a turn, for both protocols (the UI message stream and AG-UI): follow the session's stream
 * from an offset, hand each event to the protocol's translator, and end the response when the turn ends, when it
 * waits for a person (after a short settle, so that every approval of one tool round is in it), or when the follow
 * ends first. The follow is open only while the response is: a session nobody watches is polled by nobody.
 */
export interface TurnSource {
  /** Delivers the session's stream events from offset `from` on, in order, until `signal` aborts or the run ends. */
  follow(from: number, onEvent: (event: AgentEvent, offset: number) => void, signal: AbortSignal): Promise<void>;
  /** Every approval the session waits for now (its status), not only those this response has seen. */
  pendingApprovals?(): Promise<PendingApproval[]>;
}

/**
 * Where a response's own events begin: at a new message's turn, once the approvals it answered have passed, or (a
 * steering message) where a turn took a steering message: turn `turn` (the one in progress when it was sent) or a
 * later one, or at the start of a turn after it (the turn ended first, and the next one answers it).
 */
export type StartAfter = { kind: 'turn_start' } | { kind: 'approvals'; calls: string[] } | { kind: 'steered'; turn: number };

/** Whether `event` is where a response that follows a steering message sent during turn `turn` begins. */
export function opensSteeredResponse(event: AgentEvent, turn: number): boolean {
  return (event.type === 'steered' && event.turn >= turn) || (event.type === 'turn_start' && event.turn > turn);
}

/** What a protocol is: a translator of the run's events (core/stream-events.ts) into its own, pure. */
export interface TurnTranslator<Out> {
  /** What the response opens with, before any event (AG-UI's RUN_STARTED). */
  opening(): Out[];
  translate(event: AgentEvent): Out[];
  /** True once the turn ended (the translator said so to its client). */
  readonly ended: boolean;
  /** Approvals asked and not yet decided. */
  readonly waitingApprovals: number;
  /** The response ends while the turn waits for people; `pending` is every approval that waits, when known. */
  pause(pending: PendingApproval[] | undefined): Out[];
  /** The follow ended before the turn did: tell the client rather than leave it waiting. */
  abandon(reason: string, code: 'session_ended' | 'follow_failed'): Out[];
}

export interface FollowTurnOptions {
  source: TurnSource;
  /** The first stream offset to read. */
  from: number;
  /** The request's signal: a client that goes away (stop(), a reload) only stops the follow; the turn goes on. */
  signal?: AbortSignal;
  /** How long to wait after an approval request for the others of the same tool round before the response pauses. */
  approvalSettleMs?: number;
}

/** The workflow asks a tool round's approvals at once: 300 ms is far more than their events are apart. */
export const defaultApprovalSettleMs = 300;

export function followTurn<Out>(translator: TurnTranslator<Out>, options: FollowTurnOptions): ReadableStream<Out> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const settleMs = options.approvalSettleMs ?? defaultApprovalSettleMs;
  // Set when the stream is closed here or cancelled by its reader: after either, enqueue and close would throw.
  let closed = false;
  return new ReadableStream<Out>({
    start(controller) {
      let pauseTimer: ReturnType<typeof setTimeout> | undefined;
      const close = () => {
        if (closed) return;
        closed = true;
        clearTimeout(pauseTimer);
        options.signal?.removeEventListener('abort', onAbort);
        stop.abort();
        controller.close();
      };
      const send = (outs: Out[]) => {
        for (const out of outs) controller.enqueue(out);
      };
      const pause = async () => {
        const pending = await options.source.pendingApprovals?.().catch(() => undefined);
        if (closed) return;
        // Decided meanwhile (another tab, the CLI): the turn goes on, and so does this response.
        if (pending !== undefined && pending.length === 0) return;
        send(translator.pause(pending));
        close();
      };
      send(translator.opening());
      options.source
        .follow(
          options.from,
          (event) => {
            if (closed) return;
            send(translator.translate(event));
            if (translator.ended) return close();
            clearTimeout(pauseTimer);
            if (translator.waitingApprovals > 0) pauseTimer = setTimeout(() => void pause(), settleMs);
          },
          stop.signal,
        )
        .then(
          () => {
            if (closed || options.signal?.aborted) return close();
            send(translator.abandon('the session ended before the turn finished', 'session_ended'));
            close();
          },
          (error: Error) => {
            if (closed) return;
            send(translator.abandon(`following the session failed: ${error.message}`, 'follow_failed'));
            close();
          },
        );
    },
    cancel() {
      closed = true;
      stop.abort();
    },
  });
}
