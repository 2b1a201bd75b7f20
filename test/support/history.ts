import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export async function fetchEvents(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return history.events ?? [];
}

export interface ScheduledActivity {
  eventId: number;
  activityType: string;
  /** The workflow task that scheduled it: activities scheduled by the same task were started together. */
  workflowTaskCompletedEventId: number;
  summary?: string;
}

export function scheduledActivities(events: HistoryEvent[]): ScheduledActivity[] {
  return events
    .filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
    .map((event) => {
      const attributes = event.activityTaskScheduledEventAttributes!;
      return {
        eventId: Number(event.eventId),
        activityType: attributes.activityType!.name!,
        workflowTaskCompletedEventId: Number(attributes.workflowTaskCompletedEventId),
        summary: event.userMetadata?.summary?.data
          ? JSON.parse(Buffer.from(event.userMetadata.summary.data).toString())
          : undefined,
      };
    });
}

/** Attempt number of every started activity, by activity type. */
export function activityAttempts(events: HistoryEvent[]): Array<{ activityType: string; attempt: number }> {
  const typeByScheduledId = new Map(scheduledActivities(events).map((activity) => [activity.eventId, activity.activityType]));
  return events
    .filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
    .map((event) => ({
      activityType: typeByScheduledId.get(Number(event.activityTaskStartedEventAttributes!.scheduledEventId))!,
      attempt: event.activityTaskStartedEventAttributes!.attempt!,
    }));
}

/** Each update a run completed, in order: its name and its result or failure message, read from the history. */
export function completedUpdates(events: HistoryEvent[]): Array<{ name: string; result?: unknown; failure?: string }> {
  const names = new Map<string, string>();
  const completed: Array<{ name: string; result?: unknown; failure?: string }> = [];
  for (const event of events) {
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
    if (accepted) names.set(accepted.acceptedRequest!.meta!.updateId!, accepted.acceptedRequest!.input!.name!);
    const done = event.workflowExecutionUpdateCompletedEventAttributes;
    if (done) {
      const name = names.get(done.meta!.updateId!) ?? '?';
      const success = done.outcome?.success?.payloads?.[0];
      completed.push(
        success
          ? { name, result: defaultPayloadConverter.fromPayload(success as Payload) }
          : { name, failure: done.outcome?.failure?.message ?? '' },
      );
    }
  }
  return completed;
}
