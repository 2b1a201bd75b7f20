import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { scheduledActivities } from './history';

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * The recorded start of an activity. Temporal writes one ActivityTaskStarted per
 * activity, for the attempt that ended it: its attempt number, the identity of
 * the worker that ran it, and the time that attempt started.
 */
export interface ActivityStart {
  activityType: string;
  /** The summary the workflow gave the activity: `openai:gpt-4o-mini iteration 2`, `slow_step first`. */
  summary?: string;
  attempt: number;
  identity: string;
  startedAt: number;
}

export function activityStarts(events: HistoryEvent[]): ActivityStart[] {
  const scheduled = new Map(scheduledActivities(events).map((activity) => [activity.eventId, activity]));
  return events
    .filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
    .map((event) => {
      const attributes = event.activityTaskStartedEventAttributes!;
      const activity = scheduled.get(Number(attributes.scheduledEventId))!;
      return {
        activityType: activity.activityType,
        summary: activity.summary,
        attempt: attributes.attempt!,
        identity: attributes.identity!,
        startedAt: tsToMs(event.eventTime),
      };
    });
}

/** The start of the one activity with this summary; fails loudly when there is none or more than one. */
export function startOf(starts: ActivityStart[], summary: string): ActivityStart {
  const matching = starts.filter((start) => start.summary === summary);
  if (matching.length !== 1) {
    throw new Error(
      `expected one activity "${summary}", found ${matching.length}: ${JSON.stringify(starts.map((start) => start.summary))}`,
    );
  }
  return matching[0];
}
