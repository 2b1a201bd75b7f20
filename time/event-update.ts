import { defineUpdate } from '@temporalio/workflow';

/** An event from outside for a run that waits for it (`wait_for_event`). */
export interface EventToDeliver {
  name: string;
  /** Any JSON (at most names.ts's maxEventPayloadChars as JSON); absent: the event carries nothing. */
  payload?: unknown;
}

/** What a delivered event came to: the call that waited for it. */
export interface EventDelivered {
  event: string;
  callId: string;
}

/**
 * Delivers an event to the run's oldest `wait_for_event` call on its name. An update, not a signal: its validator
 * refuses, with the reason, an event that nothing waits for, so a sender learns at once that it went nowhere; an
 * accepted one is delivered once (a sender that retries with the same update id gets the first outcome back).
 */
export const deliverEventUpdate = defineUpdate<EventDelivered, [EventToDeliver]>('deliverEvent');
