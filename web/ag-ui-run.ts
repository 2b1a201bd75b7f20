import type { BaseEvent } from '@ag-ui/core';
import type { PendingApproval } from '../core/result';
import type { StreamEvent } from '../core/stream-events';
import { AgUiTranslator, runInterrupted, runStarted, type AgUiRunIds } from './ag-ui-events';

/**
 * One AG-UI run as a response body: RUN_STARTED, then the turn's events as the session's one follow delivers them,
 * translated, until the turn ends (RUN_FINISHED or RUN_ERROR) or waits for a person (RUN_FINISHED with interrupts).
 * The follow is the chat handler's, the same that feeds useChat: this file is the second adapter over it.
 */
export interface AgUiTurnFollow {
  /**
   * Delivers the session's stream events from offset `from` on, in order, until `signal` aborts or the run ends.
   * Must not resolve early while the turn is still going (an AG-UI client waits for RUN_FINISHED).
   */
  follow(from: number, onEvent: (event: StreamEvent, offset: number) => void, signal: AbortSignal): Promise<void>;
  /** Every approval the session waits for now (its status): an interrupt names all of them, not only those seen. */
  pendingApprovals?(): Promise<PendingApproval[]>;
}

export interface AgUiRunOptions {
  ids: AgUiRunIds;
  /** The first stream offset to read. */
  from: number;
  /**
   * Where this run's own events begin: `turn_start` for a new message (events before it belong to a turn that was
   * already running), or once the approval requests of these calls have passed, for a run that resumes from them
   * (what came before was the interrupted run's, which its client has shown).
   */
  startAfter: { kind: 'turn_start' } | { kind: 'approvals'; calls: string[] };
  source: AgUiTurnFollow;
  /** The request's signal: a client that goes away stops the follow (the turn goes on). */
  signal?: AbortSignal;
  /** How long to wait, after an approval request, for the others of the same tool round (default 300 ms). */
  approvalSettleMs?: number;
}

/** How long to wait after an approval request for the others of the same tool round, which the workflow asks at once. */
const defaultApprovalSettleMs = 300;

export function agUiRunEvents(options: AgUiRunOptions): ReadableStream<BaseEvent> {
  const stop = new AbortController();
  options.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  // Set when the stream is closed by us or cancelled by its reader: after either, enqueue and close would throw.
  let closed = false;
  return new ReadableStream<BaseEvent>({
    start(controller) {
      const translator = new AgUiTranslator(options.ids);
      const awaiting = new Set(options.startAfter.kind === 'approvals' ? options.startAfter.calls : []);
      let started = false;
      let interruptTimer: ReturnType<typeof setTimeout> | undefined;
      const close = () => {
        if (closed) return;
        closed = true;
        clearTimeout(interruptTimer);
        stop.abort();
        controller.close();
      };
      const interrupt = async () => {
        if (closed) return;
        const seen = translator.pendingApprovals;
        const all = (await options.source.pendingApprovals?.().catch(() => undefined)) ?? seen;
        if (closed) return;
        controller.enqueue(runInterrupted(options.ids, all.length > 0 ? all : seen, translator.usage));
        close();
      };
      controller.enqueue(runStarted(options.ids));
      const onEvent = (event: StreamEvent) => {
        if (closed) return;
        if (!started) {
          if (options.startAfter.kind === 'turn_start') started = event.type === 'turn_start';
          else if (event.type === 'approval_requested') {
            awaiting.delete(event.id);
            started = awaiting.size === 0;
            return;
          }
          if (!started) return;
        }
        for (const translated of translator.translate(event)) controller.enqueue(translated);
        if (translator.ended) return close();
        if (event.type === 'approval_requested') {
          clearTimeout(interruptTimer);
          interruptTimer = setTimeout(() => void interrupt(), options.approvalSettleMs ?? defaultApprovalSettleMs);
        }
        // A decision made elsewhere (another tab, the CLI) while this run settles: the turn goes on, no interrupt.
        if (event.type === 'approval_decided' && translator.pendingApprovals.length === 0) clearTimeout(interruptTimer);
      };
      options.source.follow(options.from, onEvent, stop.signal).then(
        () => {
          if (!closed) {
            // The run itself ended (the session closed) before this turn did: say so rather than hang.
            controller.enqueue({
              type: 'RUN_ERROR',
              message: 'the session ended before the turn finished',
              code: 'session_ended',
            } as BaseEvent);
            close();
          }
        },
        (error: Error) => {
          if (closed) return;
          controller.enqueue({
            type: 'RUN_ERROR',
            message: `following the session failed: ${error.message}`,
            code: 'follow_failed',
          } as BaseEvent);
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

/** AG-UI's HTTP transport: each event one server-sent `data:` line of JSON (which escapes every line break the text holds). */
export function agUiEventStreamResponse(events: ReadableStream<BaseEvent>): Response {
  const encoder = new TextEncoder();
  const body = events.pipeThrough(
    new TransformStream<BaseEvent, Uint8Array>({
      transform(event, controller) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`));
      },
    }),
  );
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
  });
}
