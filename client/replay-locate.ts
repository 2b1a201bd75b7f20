import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** WORKFLOW_TASK_STARTED, as a number (the proto enum) or its name (history JSON read without conversion). */
function isTaskStarted(event: HistoryEvent): boolean {
  return event.eventType === 6 || String(event.eventType) === 'EVENT_TYPE_WORKFLOW_TASK_STARTED';
}

/**
 * The events of the first workflow task whose commands this code does not make, found by replaying prefixes of the
 * history: a prefix that ends at a task's WorkflowTaskStarted checks the commands of every task before it, and fails
 * exactly when one of them differs. A binary search over the tasks takes log2(tasks) replays. Used when sdk-core's
 * error names the diverging event only by an attribute many events share (an activity type such as callModel): within
 * the one task that diverged, that attribute is then almost always unique.
 *
 * `fails` replays a prefix and says whether it failed. Undefined when the whole history does not fail after all.
 */
export async function firstDivergingTask(
  events: readonly HistoryEvent[],
  fails: (prefix: HistoryEvent[]) => Promise<boolean>,
): Promise<HistoryEvent[] | undefined> {
  const starts = events.flatMap((event, index) => (isTaskStarted(event) ? [index] : []));
  const prefix = (tasks: number) => (tasks < starts.length ? events.slice(0, starts[tasks] + 1) : [...events]);
  // prefix(k) checks the commands of tasks 0..k-1; prefix(starts.length) is the whole history.
  if (starts.length === 0 || !(await fails(prefix(starts.length)))) return undefined;
  let low = 1;
  let high = starts.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (await fails(prefix(middle))) high = middle;
    else low = middle + 1;
  }
  // Task high-1 diverged: its commands are recorded between its WorkflowTaskStarted and the next one.
  return events.slice(starts[high - 1] + 1, high < starts.length ? starts[high] : undefined);
}
