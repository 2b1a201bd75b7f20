import { temporal } from '@temporalio/proto';

/** Where a replayed history and this code parted, as far as the SDK's error says. */
export interface Divergence {
  /** The history event that did not match this code's commands, when the error names it (or names it uniquely). */
  eventId?: number;
  /** Its type, e.g. ActivityTaskScheduled. */
  eventType?: string;
  /** What differed, in a sentence: the command or patch of the history against this code's. */
  difference: string;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * Reads a replay error's message (sdk-core's nondeterminism errors, wrapped by the TypeScript SDK) into the diverging
 * event and what differed. Core names the event in some messages ("HistoryEvent(id: 11, ActivityTaskScheduled)") and
 * only an attribute in others ("Activity type of scheduled event 'a' does not match ... command 'b'"): then the event is
 * the one history event carrying that attribute, when exactly one does (activity and child workflow ids are unique in
 * a run; a type such as callModel is not, and then no event is named rather than a wrong one).
 */
export function describeDivergence(message: string, events: readonly HistoryEvent[] = []): Divergence {
  const reason = coreReason(message);
  const named =
    /HistoryEvent\(id: (\d+), (\w+)\)/.exec(reason) ?? /HistoryEvent \{ event_id: (\d+),.*?event_type: (\w+)/.exec(reason);
  if (named) return { eventId: Number(named[1]), eventType: named[2], difference: shorten(reason) };

  const mismatch =
    /(Activity|Child workflow) (id|type) of (?:scheduled event|recorded marker) '([^']*)' does not match .*? command '([^']*)'/.exec(
      reason,
    );
  if (mismatch) {
    const [, kind, attribute, recorded, current] = mismatch;
    const what = `${kind.toLowerCase()} ${attribute}`;
    const difference = `the history has ${what} '${recorded}' where this code's command has '${current}'`;
    return { ...uniqueEvent(events, (event) => eventAttribute(event, kind, attribute) === recorded), difference };
  }

  const patch = /patch marker encountered for change (\S+), but there is no corresponding change command/.exec(reason);
  if (patch) {
    const difference = `the history has patch '${patch[1]}' where this code makes no patched('${patch[1]}') call`;
    return { ...uniqueEvent(events, (event) => markerPatchId(event) === patch[1]), difference };
  }
  const changeId = /Change id (\S+) does not match expected id (\S+)/.exec(reason);
  if (changeId) return { difference: `the history has patch '${changeId[2]}' where this code's patch is '${changeId[1]}'` };

  return { difference: shorten(reason) };
}

/** Core's own sentence inside the SDK's wrapping ("... Details: ... Failure { message: \"[TMPRL1100] ...\" ..."). */
function coreReason(message: string): string {
  const inner = /message: "((?:[^"\\]|\\.)*)"/.exec(message)?.[1] ?? message.replace(/^.*?Details: /s, '');
  return inner.replace(/^\[TMPRL\d+\] /, '').replace(/\\"/g, '"');
}

function shorten(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function uniqueEvent(
  events: readonly HistoryEvent[],
  matches: (event: HistoryEvent) => boolean,
): Pick<Divergence, 'eventId' | 'eventType'> {
  const found = events.filter(matches);
  if (found.length !== 1) return {};
  return { eventId: Number(found[0].eventId), eventType: eventTypeName(found[0].eventType) };
}

function eventAttribute(event: HistoryEvent, kind: string, attribute: string): string | undefined {
  if (kind === 'Activity') {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) return attribute === 'id' ? (scheduled.activityId ?? undefined) : (scheduled.activityType?.name ?? undefined);
    return undefined; // A local activity's marker carries its id and type in encoded details: not matched here.
  }
  const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
  if (!child) return undefined;
  return attribute === 'id' ? (child.workflowId ?? undefined) : (child.workflowType?.name ?? undefined);
}

/** The patch id a patch marker records (sdk-core: marker "core_patch", details["patch-data"]: {"id": ...} as JSON). */
function markerPatchId(event: HistoryEvent): string | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_patch') return undefined;
  const data = marker.details?.['patch-data']?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    return (JSON.parse(Buffer.from(data).toString('utf8')) as { id?: string }).id;
  } catch {
    return undefined;
  }
}

/** EVENT_TYPE_ACTIVITY_TASK_SCHEDULED (or its number) → ActivityTaskScheduled, as core names event types. */
function eventTypeName(type: HistoryEvent['eventType']): string | undefined {
  if (type === null || type === undefined) return undefined;
  const name = typeof type === 'number' ? temporal.api.enums.v1.EventType[type] : String(type);
  return name
    ?.replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
}
