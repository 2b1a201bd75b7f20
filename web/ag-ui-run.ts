import type { BaseEvent } from '@ag-ui/core';
import type { PendingApproval } from '../core/result';
import type { AgentEvent } from '../core/stream-events';
import { AgUiTranslator, type AgUiRunIds } from './ag-ui-events';
import { followTurn, type StartAfter } from './turn-response';

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
  follow(from: number, onEvent: (event: AgentEvent, offset: number) => void, signal: AbortSignal): Promise<void>;
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
  startAfter: StartAfter;
  source: AgUiTurnFollow;
  /** The request's signal: a client that goes away stops the follow (the turn goes on). */
  signal?: AbortSignal;
  /** How long to wait, after an approval request, for the others of the same tool round (default 300 ms). */
  approvalSettleMs?: number;
}

/**
 * One AG-UI run's events: RUN_STARTED, then the turn as AgUiTranslator tells it, in the response life both
 * protocols share (web/turn-response.ts).
 */
export function agUiRunEvents(options: AgUiRunOptions): ReadableStream<BaseEvent> {
  return followTurn(new AgUiTranslator(options.ids, options.startAfter), options);
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
