import { eventTimeMs, modelActivityType, type RunHistory } from './history';
import type { SentMessage } from './chat-load';

/** Where one message's time went, in ms, from the client's clock and the history's (one machine, one clock). */
export interface MessageTimeline {
  /** Sent → the WorkflowExecutionUpdateAccepted event: delivery and the first workflow task. */
  accepted: number;
  /** Accepted → the callModel activity started. */
  toModelCall: number;
  /** The activity's run beyond the model's own delay: provider client, transcript store, heartbeat. */
  modelCallOverhead: number;
  /** Activity completed → the WorkflowExecutionUpdateCompleted event: the second workflow task. */
  toUpdateCompleted: number;
  /** Update completed → the client has the reply. */
  toClient: number;
}

/**
 * Each message's journey through one session's history: its update accepted,
 * the model call it caused (the next callModel after the acceptance), the
 * update completed, and the client's own send and reply times.
 */
export function messageTimelines(runs: RunHistory[], sent: SentMessage[], modelDelayMs: number): MessageTimeline[] {
  const events = runs.flatMap((run) => run.events);
  const timelines: MessageTimeline[] = [];
  for (const message of sent) {
    const acceptedIndex = events.findIndex(
      (event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId === message.updateId,
    );
    const completed = events.find(
      (event) => event.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId === message.updateId,
    );
    if (acceptedIndex < 0 || !completed) continue;
    const scheduled = events
      .slice(acceptedIndex)
      .find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === modelActivityType);
    const ofCall = (pick: (event: (typeof events)[number]) => unknown) =>
      events.find((event) => Number(pick(event)) === Number(scheduled?.eventId));
    const started = ofCall((event) => event.activityTaskStartedEventAttributes?.scheduledEventId);
    const done = ofCall((event) => event.activityTaskCompletedEventAttributes?.scheduledEventId);
    if (!started || !done) continue;
    const acceptedAt = eventTimeMs(events[acceptedIndex]);
    timelines.push({
      accepted: acceptedAt - message.sentAt,
      toModelCall: eventTimeMs(started) - acceptedAt,
      modelCallOverhead: eventTimeMs(done) - eventTimeMs(started) - modelDelayMs,
      toUpdateCompleted: eventTimeMs(completed) - eventTimeMs(done),
      toClient: message.repliedAt - eventTimeMs(completed),
    });
  }
  return timelines;
}
