import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { describeDivergence } from '../../client/replay-divergence';
import { firstDivergingTask } from '../../client/replay-locate';

// The messages are sdk-core's nondeterminism errors as the TypeScript SDK wraps them (DeterminismViolationError).
const wrapped = (core: string) =>
  'Replay failed with a nondeterminism error. This means that the workflow code as written is not compatible with the history that was fed in. ' +
  `Details: Workflow activation completion failed: Failure { failure: Some(Failure { message: "[TMPRL1100] Nondeterminism error: ${core}", source: "" }) }`;

it('takes the event id and type from a message that names the event', () => {
  expect(
    describeDivergence(wrapped('No command scheduled for event HistoryEvent(id: 17, StartChildWorkflowExecutionInitiated)')),
  ).toEqual({
    eventId: 17,
    eventType: 'StartChildWorkflowExecutionInitiated',
    difference: 'Nondeterminism error: No command scheduled for event HistoryEvent(id: 17, StartChildWorkflowExecutionInitiated)',
  });
});

it('finds the event a mismatch names by its attribute only when exactly one event carries it', () => {
  // As history files hold them (agent history --out), read the way replay reads them.
  const events = historyFromJSON({
    events: [
      {
        eventId: '5',
        eventType: 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED',
        activityTaskScheduledEventAttributes: { activityId: '1', activityType: { name: 'callModel' } },
      },
      {
        eventId: '11',
        eventType: 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED',
        activityTaskScheduledEventAttributes: { activityId: '2', activityType: { name: 'callModel' } },
      },
      {
        eventId: '17',
        eventType: 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED',
        startChildWorkflowExecutionInitiatedEventAttributes: {
          workflowId: 'parent/call_r',
          workflowType: { name: 'agentWorkflow' },
        },
      },
    ],
  }).events!;

  expect(
    describeDivergence(wrapped("Activity id of scheduled event '2' does not match activity id of activity command '3'"), events),
  ).toEqual({
    eventId: 11,
    eventType: 'ActivityTaskScheduled',
    difference: "the history has activity id '2' where this code's command has '3'",
  });
  expect(
    describeDivergence(
      wrapped("Child workflow id of scheduled event 'parent/call_r' does not match child workflow id of command 'parent/x'"),
      events,
    ),
  ).toMatchObject({
    eventId: 17,
    eventType: 'StartChildWorkflowExecutionInitiated',
  });
  // callModel was scheduled twice: naming either would be a guess.
  expect(
    describeDivergence(
      wrapped("Activity type of scheduled event 'callModel' does not match activity type of activity command 'callTool'"),
      events,
    ),
  ).toEqual({
    difference: "the history has activity type 'callModel' where this code's command has 'callTool'",
  });
});

it('names a patch the history has and this code does not call', () => {
  // sdk-core's patch marker: details["patch-data"] holds {"id", "deprecated"} as a JSON payload.
  const patchData = Buffer.from(JSON.stringify({ id: 'summarise-v2', deprecated: false })).toString('base64');
  const [marker] = historyFromJSON({
    events: [
      {
        eventId: '9',
        eventType: 'EVENT_TYPE_MARKER_RECORDED',
        markerRecordedEventAttributes: {
          markerName: 'core_patch',
          details: { 'patch-data': { payloads: [{ metadata: { encoding: 'anNvbi9wbGFpbg==' }, data: patchData }] } },
        },
      },
    ],
  }).events!;
  expect(
    describeDivergence(
      wrapped('Non-deprecated patch marker encountered for change summarise-v2, but there is no corresponding change command!'),
      [marker],
    ),
  ).toEqual({
    eventId: 9,
    eventType: 'MarkerRecorded',
    difference: "the history has patch 'summarise-v2' where this code makes no patched('summarise-v2') call",
  });
});

it('keeps any other reason as it is, cut to a line', () => {
  expect(describeDivergence('Replay failed due workflow task failure. Details: TypeError: x is not a function')).toEqual({
    difference: 'TypeError: x is not a function',
  });
  expect(describeDivergence(wrapped('y'.repeat(1000))).difference).toHaveLength(301);
});

it('finds the first workflow task that diverges by replaying prefixes, in log2(tasks) replays', async () => {
  // Five workflow tasks; the third (events 13-15) scheduled what this code does not: a prefix fails once it reaches
  // the WorkflowTaskStarted after that task's commands.
  const started = [3, 7, 11, 16, 20];
  const events = historyFromJSON({
    events: Array.from({ length: 22 }, (_, index) =>
      started.includes(index + 1)
        ? { eventId: String(index + 1), eventType: 'EVENT_TYPE_WORKFLOW_TASK_STARTED', workflowTaskStartedEventAttributes: {} }
        : { eventId: String(index + 1), eventType: 'EVENT_TYPE_TIMER_STARTED', timerStartedEventAttributes: { timerId: '1' } },
    ),
  }).events!;
  const replayed: number[] = [];
  const fails = async (prefix: typeof events) => {
    replayed.push(prefix.length);
    return prefix.length >= 16;
  };
  const task = await firstDivergingTask(events, fails);
  expect(task!.map((event) => Number(event.eventId))).toEqual([12, 13, 14, 15]);
  expect(replayed.length).toBeLessThanOrEqual(1 + Math.ceil(Math.log2(started.length)));
  // A history that replays after all (the failure was not the code's) locates nothing.
  expect(await firstDivergingTask(events, async () => false)).toBeUndefined();
});
