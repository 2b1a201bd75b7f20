import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One activity a run scheduled, as its history tells it: what it was given, and how each attempt that ended did. */
export interface ActivityCall {
  activityType: string;
  summary?: string;
  input: unknown;
  result?: unknown;
  /** Failed attempts that were not retried further, and timeouts (retried attempts are not in history). */
  failure?: { type?: string; message: string };
  /** The attempt that ended it, from its started event. */
  attempt?: number;
}

/** Every activity in these events, in the order they were scheduled, inputs and results decoded (plain JSON payloads). */
export function activityCalls(events: HistoryEvent[]): ActivityCall[] {
  const calls = new Map<number, ActivityCall>();
  const decode = (payloads: Payload[] | null | undefined) =>
    payloads?.[0] ? defaultPayloadConverter.fromPayload(payloads[0]) : undefined;
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && scheduled) {
      calls.set(Number(event.eventId), {
        activityType: scheduled.activityType!.name!,
        summary: event.userMetadata?.summary?.data
          ? JSON.parse(Buffer.from(event.userMetadata.summary.data).toString())
          : undefined,
        input: decode(scheduled.input?.payloads as Payload[]),
      });
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) calls.get(Number(started.scheduledEventId))!.attempt = started.attempt ?? undefined;
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) calls.get(Number(completed.scheduledEventId))!.result = decode(completed.result?.payloads as Payload[]);
    const failed = event.activityTaskFailedEventAttributes;
    if (failed) {
      const cause = failed.failure?.cause ?? failed.failure;
      calls.get(Number(failed.scheduledEventId))!.failure = {
        type: failed.failure?.applicationFailureInfo?.type ?? cause?.applicationFailureInfo?.type ?? undefined,
        message: failed.failure?.message ?? '',
      };
    }
  }
  return [...calls.values()];
}
