import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { scheduledActivities } from './history';

export const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Failure = temporal.api.failure.v1.IFailure;

/**
 * What a fault left in a history. The server writes ActivityTaskStarted only for
 * an activity's last attempt (retries are not separate events), so the attempt
 * number and the previous attempt's failure are read from that one event.
 */
export interface FinalAttempt {
  activityType: string;
  attempt: number;
  /** The failure of the attempt before this one, if there was one. */
  lastFailure?: { message: string; type?: string };
}

export function finalAttempts(events: HistoryEvent[], activityType: string): FinalAttempt[] {
  const typeByScheduledId = new Map(scheduledActivities(events).map((activity) => [activity.eventId, activity.activityType]));
  return events
    .filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
    .map((event) => event.activityTaskStartedEventAttributes!)
    .filter((started) => typeByScheduledId.get(Number(started.scheduledEventId)) === activityType)
    .map((started) => ({
      activityType,
      attempt: started.attempt!,
      ...(started.lastFailure && { lastFailure: describeFailure(started.lastFailure) }),
    }));
}

export function attemptsOf(events: HistoryEvent[], activityType: string): number[] {
  return finalAttempts(events, activityType).map((started) => started.attempt);
}

/** The failure the run ended with, as the Web UI shows it. */
export function workflowExecutionFailure(events: HistoryEvent[]): { message: string; type?: string } | undefined {
  const failed = events.find((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED);
  const failure = failed?.workflowExecutionFailedEventAttributes?.failure;
  return failure ? describeFailure(failure) : undefined;
}

export function countEvents(events: HistoryEvent[], type: temporal.api.enums.v1.EventType): number {
  return events.filter((event) => event.eventType === type).length;
}

/** Encoded size of the largest event: an upper bound on every payload it carries. */
export function largestEventBytes(events: HistoryEvent[]): number {
  return Math.max(...events.map((event) => temporal.api.history.v1.HistoryEvent.encode(event).finish().length));
}

function describeFailure(failure: Failure): { message: string; type?: string } {
  const type = failure.applicationFailureInfo?.type ?? (failure.timeoutFailureInfo ? 'Timeout' : undefined);
  return { message: failure.message ?? '', ...(type && { type }) };
}

/** The attempt number of a pending activity of this type, once it has failed at least once. */
export async function retriedPendingAttempt(
  client: Client,
  workflowId: string,
  activityType: string,
): Promise<number | undefined> {
  const description = await client.workflow.getHandle(workflowId).describe();
  const pending = (description.raw.pendingActivities ?? []).find((activity) => activity.activityType?.name === activityType);
  return pending && (pending.attempt ?? 0) >= 2 ? pending.attempt! : undefined;
}
