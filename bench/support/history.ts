import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
export type History = temporal.api.history.v1.IHistory;

const EventType = temporal.api.enums.v1.EventType;

/** The activity type of the model call (`CoreActivities`). */
export const modelActivityType = 'callModel';

/** One run of a workflow id: a session that continued as new has several. */
export interface RunHistory {
  runId: string;
  history: History;
  events: HistoryEvent[];
  /** Sum of the events' protobuf encodings: what the server stores and replays. */
  bytes: number;
  /** Payloads the data converter put in external storage: history holds only a claim for each. */
  externalBytes: number;
}

export function eventBytes(event: HistoryEvent): number {
  return temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
}

export function eventTimeMs(event: HistoryEvent): number {
  return tsToMs(event.eventTime);
}

/**
 * Every run of a workflow id from its first run on, in order. Follows the
 * chain through each run's ContinuedAsNew event, which names the next run
 * exactly; the visibility store (client.workflow.list) may lag behind.
 */
export async function fetchRunChain(client: Client, workflowId: string, firstRunId: string): Promise<RunHistory[]> {
  const runs: RunHistory[] = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const history: History = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events: HistoryEvent[] = history.events ?? [];
    runs.push({
      runId,
      history,
      events,
      bytes: events.reduce((sum, event) => sum + eventBytes(event), 0),
      externalBytes: events.reduce((sum, event) => sum + externalPayloadBytes(event), 0),
    });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}

/** Sizes of the externally stored payloads an event refers to, wherever they sit in it. */
export function externalPayloadBytes(value: unknown): number {
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return 0;
  let total = 0;
  for (const [key, child] of Object.entries(value)) {
    if (key === 'externalPayloads' && Array.isArray(child)) {
      total += child.reduce((sum: number, details: { sizeBytes?: unknown }) => sum + toNumber(details?.sizeBytes), 0);
    } else {
      total += externalPayloadBytes(child);
    }
  }
  return total;
}

/** A protobuf int64 arrives as a Long (or a number, or nothing). */
function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value && typeof value === 'object' && 'toNumber' in value && typeof value.toNumber === 'function') return value.toNumber();
  return 0;
}

/** How the last run of a chain ended, from its closing event. */
export function closingOutcome(runs: RunHistory[]): { completed: boolean; description: string } {
  const last = runs.at(-1)?.events.at(-1);
  switch (last?.eventType) {
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
      return { completed: true, description: 'completed' };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
      return {
        completed: false,
        description: `terminated: ${last.workflowExecutionTerminatedEventAttributes?.reason ?? 'no reason'}`,
      };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
      return {
        completed: false,
        description: `failed: ${last.workflowExecutionFailedEventAttributes?.failure?.message ?? 'no message'}`,
      };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
      return { completed: false, description: 'timed out' };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
      return { completed: false, description: 'cancelled' };
    default:
      return { completed: false, description: 'still running' };
  }
}

/** One model call of a session, numbered across all of its runs. */
export interface ModelCallRecord {
  turn: number;
  runIndex: number;
  scheduledMs: number;
  /** The call's own events: ActivityTaskScheduled, Started, Completed (and any failed attempts'). */
  callBytes: number;
  /** Everything history gained from this call's Scheduled event up to the next call's: the whole turn. */
  turnBytes: number;
  /** History bytes of every run before this call's Scheduled event. */
  bytesBefore: number;
}

export function modelCalls(runs: RunHistory[]): ModelCallRecord[] {
  const calls: ModelCallRecord[] = [];
  let current: ModelCallRecord | undefined;
  let total = 0;
  runs.forEach((run, runIndex) => {
    const byScheduledId = new Map<number, ModelCallRecord>();
    for (const event of run.events) {
      const bytes = eventBytes(event);
      if (event.activityTaskScheduledEventAttributes?.activityType?.name === modelActivityType) {
        current = {
          turn: calls.length + 1,
          runIndex,
          scheduledMs: eventTimeMs(event),
          callBytes: 0,
          turnBytes: 0,
          bytesBefore: total,
        };
        calls.push(current);
        byScheduledId.set(Number(event.eventId), current);
      }
      const owner = byScheduledId.get(scheduledEventId(event) ?? -1);
      if (owner) owner.callBytes += bytes;
      if (current) current.turnBytes += bytes;
      total += bytes;
    }
  });
  return calls;
}

/** History bytes of each activity type's events (scheduled, started, completed, failed...), over every run. */
export function bytesByActivityType(runs: RunHistory[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const run of runs) {
    const typeOf = new Map<number, string>();
    for (const event of run.events) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled) typeOf.set(Number(event.eventId), scheduled.activityType?.name ?? '?');
      const type = typeOf.get(scheduledEventId(event) ?? -1);
      if (type !== undefined) totals.set(type, (totals.get(type) ?? 0) + eventBytes(event));
    }
  }
  return totals;
}

/** The ActivityTaskScheduled event an activity event belongs to, or the event's own id when it is one. */
function scheduledEventId(event: HistoryEvent): number | undefined {
  const id =
    (event.activityTaskScheduledEventAttributes ? event.eventId : undefined) ??
    event.activityTaskStartedEventAttributes?.scheduledEventId ??
    event.activityTaskCompletedEventAttributes?.scheduledEventId ??
    event.activityTaskFailedEventAttributes?.scheduledEventId ??
    event.activityTaskTimedOutEventAttributes?.scheduledEventId ??
    event.activityTaskCancelRequestedEventAttributes?.scheduledEventId ??
    event.activityTaskCanceledEventAttributes?.scheduledEventId;
  return id === undefined || id === null ? undefined : Number(id);
}

/** Scheduled activities of one run with their type and time, in history order. */
export function scheduledActivities(run: RunHistory): Array<{ activityType: string; scheduledMs: number }> {
  return run.events
    .filter((event) => event.activityTaskScheduledEventAttributes)
    .map((event) => ({
      activityType: event.activityTaskScheduledEventAttributes!.activityType!.name!,
      scheduledMs: eventTimeMs(event),
    }));
}

/**
 * Loop iterations of a workflow id, in order: each runs from one Scheduled event
 * of `activityType` (the model call, or the floor's model-like step) to the next,
 * across continue-as-new (history timestamps, so the client's own delays don't count).
 */
export function loopIterations(runs: RunHistory[], activityType: string): Array<{ startedMs: number; ms: number }> {
  const scheduled = runs
    .flatMap(scheduledActivities)
    .filter((activity) => activity.activityType === activityType)
    .map((activity) => activity.scheduledMs);
  return scheduled.slice(1).map((ms, index) => ({ startedMs: scheduled[index], ms: ms - scheduled[index] }));
}

export function iterationTimes(runs: RunHistory[], activityType: string): number[] {
  return loopIterations(runs, activityType).map((iteration) => iteration.ms);
}

/** Where the time of a loop goes: each task's wait to be picked up and its run, by kind, in ms. */
export interface TaskTimings {
  workflowTaskWait: number[];
  workflowTaskRun: number[];
  activityWait: number[];
  activityRun: number[];
}

/** `fromMs`: only tasks that ended at or after this time (epoch ms), e.g. once a load began. */
export function taskTimings(runs: RunHistory[], fromMs = 0): TaskTimings {
  const timings: TaskTimings = { workflowTaskWait: [], workflowTaskRun: [], activityWait: [], activityRun: [] };
  for (const run of runs) {
    const timeOf = new Map(run.events.map((event) => [Number(event.eventId), eventTimeMs(event)]));
    const since = (eventId: unknown, event: HistoryEvent) => eventTimeMs(event) - (timeOf.get(Number(eventId)) ?? Number.NaN);
    for (const event of run.events.filter((candidate) => eventTimeMs(candidate) >= fromMs)) {
      if (event.workflowTaskStartedEventAttributes)
        timings.workflowTaskWait.push(since(event.workflowTaskStartedEventAttributes.scheduledEventId, event));
      if (event.workflowTaskCompletedEventAttributes)
        timings.workflowTaskRun.push(since(event.workflowTaskCompletedEventAttributes.startedEventId, event));
      if (event.activityTaskStartedEventAttributes)
        timings.activityWait.push(since(event.activityTaskStartedEventAttributes.scheduledEventId, event));
      if (event.activityTaskCompletedEventAttributes)
        timings.activityRun.push(since(event.activityTaskCompletedEventAttributes.startedEventId, event));
    }
  }
  return timings;
}
