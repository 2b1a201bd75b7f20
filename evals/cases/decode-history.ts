import type { DataConverter, LoadedDataConverter } from '@temporalio/common';
import {
  decodeArrayFromPayloads,
  extstoreInboundOptions,
  isLoadedDataConverter,
  loadDataConverter,
  visit,
  walkGetWorkflowExecutionHistoryResponse,
} from '@temporalio/common/lib/internal-non-workflow';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;
const EventType = temporal.api.enums.v1.EventType;

/** What a recorded run's events say of its conversation, decoded: the facts evals/cases/recorded-conversation.ts reads. */
export interface DecodedRun {
  workflowId: string;
  runId: string;
  /** The workflow's input (the first argument of its started event). */
  input: unknown;
  /** Each model call that completed, in the order it was scheduled: its input and its result. */
  modelCalls: Array<{ input: unknown; result: unknown }>;
  /** The workflow's result, when the run completed. */
  result?: unknown;
}

// The activities that answer a model call with a ModelCallInput and a ModelCallResult (workflows/model-call.ts and
// workflows/batch-model-call.ts): the online call, and the read of a batch's answer.
const modelCallActivities = new Set(['callModel', 'readModelBatch']);

/**
 * Decodes what a run's history holds of its conversation, with the data converter of the workers that wrote it: its
 * external storage resolves claims, its codecs decrypt, its payload converter reads JSON. The history is copied
 * first: the caller's is never changed.
 */
export async function decodeRun(
  workflowId: string,
  history: History,
  dataConverter: DataConverter | LoadedDataConverter,
): Promise<DecodedRun> {
  const converter = isLoadedDataConverter(dataConverter) ? dataConverter : loadDataConverter(dataConverter);
  const copy = historyFromJSON(JSON.parse(historyToJSON(history)));
  // Only the events read below are resolved: a run's other payloads (tool results, stream events) are never fetched.
  const wanted = relevantEvents(copy.events ?? []);
  await visit(
    { history: { events: wanted } },
    walkGetWorkflowExecutionHistoryResponse,
    extstoreInboundOptions(converter.externalStorage),
  );
  const first = async (payloads: Payloads) => (await decodeArrayFromPayloads(converter, payloads?.payloads ?? []))[0];
  const started = wanted[0]?.workflowExecutionStartedEventAttributes;
  if (!started) throw new Error('the history does not start with a WorkflowExecutionStarted event: not a whole run');
  const inputs = new Map<string, unknown>();
  const run: DecodedRun = {
    workflowId,
    runId: started.originalExecutionRunId ?? '',
    input: await first(started.input),
    modelCalls: [],
  };
  for (const event of wanted) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) inputs.set(String(event.eventId), await first(scheduled.input));
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed && inputs.has(String(completed.scheduledEventId)))
      run.modelCalls.push({ input: inputs.get(String(completed.scheduledEventId)), result: await first(completed.result) });
    const finished = event.workflowExecutionCompletedEventAttributes;
    if (finished) run.result = await first(finished.result);
  }
  return run;
}

/** The started event, the model calls scheduled and completed, and the completion: nothing else is decoded. */
function relevantEvents(events: temporal.api.history.v1.IHistoryEvent[]): temporal.api.history.v1.IHistoryEvent[] {
  const modelCallIds = new Set<string>();
  return events.filter((event) => {
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
        return true;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const type = event.activityTaskScheduledEventAttributes?.activityType?.name ?? '';
        if (modelCallActivities.has(type)) modelCallIds.add(String(event.eventId));
        return modelCallActivities.has(type);
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
        return modelCallIds.has(String(event.activityTaskCompletedEventAttributes?.scheduledEventId));
      default:
        return false;
    }
  });
}
