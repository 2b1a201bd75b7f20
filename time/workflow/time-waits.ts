import { ApplicationFailure, condition, setHandler, sleep } from '@temporalio/workflow';
import { failureTypes } from '../../core/errors';
import type { TimedWait } from '../../core/timed-wait';
import { visible } from '../../core/visible-text';
import type {
  WorkflowToolCall,
  WorkflowToolContext,
  WorkflowToolFeature,
  WorkflowToolResult,
  WorkflowToolRun,
} from '../../workflows/workflow-tools';
import { deliverEventUpdate, type EventToDeliver } from '../event-update';
import {
  describeMoment,
  describeSeconds,
  eventNamePattern,
  maxEventPayloadChars,
  maxReasonChars,
  momentPattern,
  timeToolNames,
  waitLengthProblem,
} from '../names';

/**
 * The time tools' workflow side: `sleep` and `wait_until` on a durable timer, `wait_for_event` on the run's own
 * state with a timer for its timeout, each timer named in the Web UI by why the model waits. The model's arguments
 * are checked here again (they are the model's): a wait beyond the tool's bound, or a moment without a zone, is an
 * error result, never a long wait. A cancelled or interrupted turn cancels the timer at once. A wait carried across
 * continue-as-new (OpenRound's `waits`) waits on to its recorded deadline.
 */
export const timeWorkflowTools: WorkflowToolFeature = { name: 'time', start: startTimeTools };

interface EventWaiter {
  callId: string;
  event: string;
  /** Set by the update's handler; taken by the waiting call. */
  arrived?: { payload: unknown; at: number };
}

function startTimeTools(context: WorkflowToolContext): WorkflowToolRun {
  // Oldest first: an event goes to the call that has waited for it longest.
  const waiters: EventWaiter[] = [];
  setHandler(
    deliverEventUpdate,
    (event) => {
      const waiter = waiters.find((candidate) => candidate.event === event.name && !candidate.arrived)!;
      waiter.arrived = { payload: event.payload ?? null, at: Date.now() };
      return { event: event.name, callId: waiter.callId };
    },
    { validator: (event) => validateEvent(event, waiters, context) },
  );

  const waitForEvent = async (call: WorkflowToolCall): Promise<WorkflowToolResult> => {
    const args = checkedArguments(call, ['event', 'timeoutSeconds']);
    if (typeof args === 'string') return problem(args);
    const { event, timeoutSeconds } = args as { event: unknown; timeoutSeconds: unknown };
    if (typeof event !== 'string' || !eventNamePattern.test(event))
      return problem(`event must be a name of letters, digits and . _ : - (at most 100), got ${shown(event)}`);
    const seconds = checkedSeconds(timeoutSeconds, call, 'timeoutSeconds');
    if (typeof seconds === 'string') return problem(seconds);
    const wait = begin(call, seconds, { event });
    const waiter: EventWaiter = { callId: call.call.id, event };
    waiters.push(waiter);
    try {
      const arrived = await condition(() => waiter.arrived !== undefined, left(wait), { summary: timerSummary(call, wait) });
      if (!arrived || !waiter.arrived)
        return problem(
          `no event "${event}" arrived within ${describeSeconds(seconds)} (by ${describeMoment(Date.parse(wait.until))})`,
        );
      const waited = describeSeconds((waiter.arrived.at - Date.parse(wait.startedAt)) / 1000);
      return { content: JSON.stringify({ event, waited, payload: waiter.arrived.payload }), isError: false };
    } finally {
      waiters.splice(waiters.indexOf(waiter), 1);
    }
  };

  return {
    runners: {
      [timeToolNames.sleep]: (call) => {
        const args = checkedArguments(call, ['seconds']);
        if (typeof args === 'string') return Promise.resolve(problem(args));
        const seconds = checkedSeconds((args as { seconds: unknown }).seconds, call, 'seconds');
        return typeof seconds === 'string' ? Promise.resolve(problem(seconds)) : slept(call, begin(call, seconds));
      },
      [timeToolNames.waitUntil]: (call) => {
        const args = checkedArguments(call, ['until']);
        if (typeof args === 'string') return Promise.resolve(problem(args));
        const { until } = args as { until: unknown };
        if (typeof until !== 'string' || !momentPattern.test(until) || Number.isNaN(Date.parse(until)))
          return Promise.resolve(
            problem(`until must be an ISO 8601 date and time with its zone, as 2026-12-05T09:00:00Z; got ${shown(until)}`),
          );
        const seconds = call.carried ? 0 : Math.max(0, (Date.parse(until) - Date.now()) / 1000);
        if (seconds > call.settings.maxSeconds)
          return Promise.resolve(
            problem(
              `${until} is ${describeSeconds(seconds)} away; this agent may wait at most ${describeSeconds(call.settings.maxSeconds)}`,
            ),
          );
        return slept(call, begin(call, seconds));
      },
      [timeToolNames.waitForEvent]: waitForEvent,
    },
    settling: () => waiters.some((waiter) => waiter.arrived !== undefined),
  };
}

/** The event's refusal, when nothing waits for it here: the update's validator, so the sender is told why. */
function validateEvent(event: EventToDeliver, waiters: EventWaiter[], context: WorkflowToolContext): void {
  const refuse = (message: string) => {
    throw ApplicationFailure.create({ type: failureTypes.messageRefused, message, nonRetryable: true });
  };
  if (typeof event?.name !== 'string' || !eventNamePattern.test(event.name))
    refuse('an event needs a name of letters, digits and . _ : - (at most 100)');
  if (context.handingOver())
    refuse('the run is handing its waits to its next run (continue-as-new); send the event again in a moment');
  const open = waiters.filter((waiter) => !waiter.arrived);
  if (open.length === 0) refuse(`this run waits for no event; "${event.name}" was not delivered`);
  if (!open.some((waiter) => waiter.event === event.name))
    refuse(
      `this run waits for no event "${event.name}"; it waits for: ${[...new Set(open.map((waiter) => waiter.event))].join(', ')}`,
    );
  const size = JSON.stringify(event.payload ?? null)?.length ?? 0;
  if (size > maxEventPayloadChars)
    refuse(`the event's payload is ${size} characters of JSON; a run takes at most ${maxEventPayloadChars}`);
}

/** The wait this call begins now, or the one an earlier run began (carried across continue-as-new). */
function begin(call: WorkflowToolCall, seconds: number, extra: { event?: string } = {}): TimedWait {
  const wait: TimedWait = call.carried ?? {
    callId: call.call.id,
    tool: call.call.name,
    reason: reasonOf(call.parsed),
    startedAt: new Date().toISOString(),
    until: new Date(Date.now() + seconds * 1000).toISOString(),
    ...extra,
  };
  call.waiting(wait);
  return wait;
}

async function slept(call: WorkflowToolCall, wait: TimedWait): Promise<WorkflowToolResult> {
  await sleep(left(wait), { summary: timerSummary(call, wait) });
  const waited = describeSeconds((Date.now() - Date.parse(wait.startedAt)) / 1000);
  return {
    content: `Waited ${waited}, from ${wait.startedAt} to ${new Date().toISOString()}; it is now later, go on.`,
    isError: false,
  };
}

/** What is left of a wait, at least a millisecond: a timer of zero is no timer at all. */
function left(wait: TimedWait): number {
  return Math.max(1, Date.parse(wait.until) - Date.now());
}

/** `sleep until 2026-12-05T09:00:00.000Z: check the build again`: the timer's summary in the Web UI. */
function timerSummary(call: WorkflowToolCall, wait: TimedWait): string {
  const what = wait.event !== undefined ? `wait for event ${wait.event}` : call.call.name;
  return `${what} until ${wait.until}: ${wait.reason}`;
}

function checkedArguments(call: WorkflowToolCall, required: string[]): Record<string, unknown> | string {
  const args = call.parsed;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return `${call.call.name} takes an object of arguments`;
  const missing = required.filter((name) => !(name in args));
  return missing.length > 0 ? `${call.call.name} needs ${missing.join(', ')}` : (args as Record<string, unknown>);
}

/** A wait's length, checked against the tool's bound: a model asking to sleep forever gets an error, not a timer. */
function checkedSeconds(value: unknown, call: WorkflowToolCall, name: string): number | string {
  if (call.carried) return 0;
  if (typeof value !== 'number') return `${name} must be a number of seconds above 0, got ${shown(value)}`;
  return waitLengthProblem(value, call.settings.maxSeconds, name) ?? value;
}

function reasonOf(parsed: unknown): string {
  const reason = (parsed as { reason?: unknown } | null)?.reason;
  const text = typeof reason === 'string' && reason.trim() ? visible(reason.trim()).replace(/\s+/g, ' ') : 'no reason given';
  return text.length > maxReasonChars ? `${text.slice(0, maxReasonChars - 1)}…` : text;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return visible(text.length > 60 ? `${text.slice(0, 59)}…` : text);
}

function problem(message: string): WorkflowToolResult {
  return { content: `Error: ${message}`, isError: true };
}
