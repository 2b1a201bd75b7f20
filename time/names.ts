/**
 * The time tools' names, bounds and argument rules: one place the worker's tool definitions (./time-tools.ts) and the
 * workflow's runners (./workflow/time-waits.ts) both read, so the model's schema and the workflow's check agree. Pure:
 * the workflow bundle loads it.
 */

import { waitCeilingSeconds } from '../core/timed-wait';

export const timeToolNames = { sleep: 'sleep', waitUntil: 'wait_until', waitForEvent: 'wait_for_event' } as const;

const day = 24 * 60 * 60;
/** The longest one sleep (`sleep`, `wait_until`) may last unless the agent's tools say otherwise: a week. */
export const defaultMaxSleepSeconds = 7 * day;
/** The longest one `wait_for_event` may wait unless the agent's tools say otherwise: two weeks. */
export const defaultMaxWaitSeconds = 14 * day;
/** The ceiling of either bound, whatever a definition asks: a year (an agent's own bounds share it). */
export const ceilingSeconds = waitCeilingSeconds;

/** An event's name: what `agent signal`, sendEvent and the webhook endpoint name it by. */
export const eventNamePattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
/** The most of an event's payload, as JSON, a run takes: it becomes a tool result, so it is bounded like one. */
export const maxEventPayloadChars = 32_768;
/** The most of the model's `reason` kept: it names the timer in the Web UI and the wait in `agent show`. */
export const maxReasonChars = 120;

/** `3 d 4 h`, `2 h 0 min`, `45 s`: a duration as a person reads it, in its largest unit and the one below. */
export function describeSeconds(seconds: number): string {
  const units: Array<[string, number]> = [
    ['d', day],
    ['h', 60 * 60],
    ['min', 60],
    ['s', 1],
  ];
  const whole = Math.max(0, Math.round(seconds));
  const first = units.findIndex(([, size]) => whole >= size);
  if (first === -1 || first === units.length - 1) return `${whole} s`;
  const [[unit, size], [nextUnit, nextSize]] = [units[first], units[first + 1]];
  return `${Math.floor(whole / size)} ${unit} ${Math.floor((whole % size) / nextSize)} ${nextUnit}`;
}

/** `Sat, 05 Dec 2026 09:00:00 GMT (2026-12-05T09:00:00.000Z)`: a moment in absolute terms, its date and zone named. */
export function describeMoment(epochMs: number): string {
  const moment = new Date(epochMs);
  return `${moment.toUTCString()} (${moment.toISOString()})`;
}

/** An ISO 8601 date and time with its zone (`Z` or `+02:00`): a moment without one would be read in the worker's zone. */
export const momentPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * What is wrong with a wait of `seconds` under the bound `max`, for the model; undefined when it may wait that long. A
 * model asking to sleep forever (a huge number, Infinity, NaN) gets this as its tool result, never a timer.
 */
export function waitLengthProblem(seconds: number, max: number, name: string): string | undefined {
  if (!Number.isFinite(seconds) || seconds <= 0) return `${name} must be a number of seconds above 0, got ${String(seconds)}`;
  if (seconds > max)
    return `${name} is ${seconds} (${describeSeconds(seconds)}); this agent may wait at most ${max} (${describeSeconds(max)})`;
  return undefined;
}
