import type { ScheduleSpec } from '@temporalio/client';
import { firstCronFiring, localParts, parseCron } from './cron-next';

/**
 * When a schedule fires: once at a moment, or whenever a cron expression matches (in a time zone, UTC unless given).
 * The same shape from a person (`agent schedule create --at|--cron`) and from the model (`schedule_run`); the model's
 * is held to more (modelWhenProblem).
 */
export type ScheduleWhen = { at: string } | { cron: string; timezone?: string };

/** A moment with its offset (`Z` or `+02:00`): a time without one names no moment, so it is refused. */
const zonedMoment = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A cron field as the model may write it: numbers, names (MON, JAN), and `* , - / ?`; nothing that hides text. */
const cronField = /^[0-9A-Za-z*,/?-]+$/;
const cronShorthands = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** What is wrong with `when` for anyone, at `now`; undefined when it names times a schedule can have. */
export function whenProblem(when: ScheduleWhen, now: Date): string | undefined {
  if ('at' in when) {
    if (!zonedMoment.test(when.at))
      return `at must be an ISO 8601 time with its offset, like 2026-12-03T09:00:00Z or 2026-12-03T10:00:00+01:00, got ${JSON.stringify(when.at)}`;
    const moment = new Date(when.at);
    if (Number.isNaN(moment.getTime())) return `at is not a real time: ${JSON.stringify(when.at)}`;
    if (moment.getTime() <= now.getTime())
      return `at is not in the future: ${formatMoment(moment)} is before ${formatMoment(now)}`;
    return undefined;
  }
  if (when.cron.trim() === '') return 'cron must not be empty';
  if (when.timezone !== undefined && !knownTimeZone(when.timezone))
    return `unknown time zone ${JSON.stringify(when.timezone)} (an IANA name, like Europe/Paris or UTC)`;
  return undefined;
}

/**
 * What more the model's `when` must be: a schedule it asks for fires at most once a minute (a cron of 5 fields, or 6
 * with a year; no seconds field and no `@every`), and says its zone in the zone field, with no comment a person might
 * read as something else. With the skip overlap policy a schedule then runs at most one run at a time, a minute apart.
 */
export function modelWhenProblem(when: ScheduleWhen): string | undefined {
  if ('at' in when) return undefined;
  const cron = when.cron.trim();
  if (cronShorthands.has(cron.toLowerCase())) return undefined;
  const fields = cron.split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6)
    return `cron must have 5 fields (minute hour day-of-month month day-of-week), or 6 with a year; got ${fields.length}`;
  if (!fields.every((field) => cronField.test(field)))
    return 'cron fields may hold only numbers, names (MON, JAN) and * , - / ?; give the time zone in timezone';
  const parsed = parseCron(cron);
  if (typeof parsed === 'string') return parsed;
  // Crons differ on a day that must match both fields or either: the model gives one, so the date shown is the one fired.
  if (parsed.dayRestricted && parsed.weekdayRestricted)
    return 'give day-of-month or day-of-week, not both (leave the other *): crons differ on whether both must match';
  return undefined;
}

/**
 * The first firing of the model's `when` after `now`: the moment of a one-off, the first match of a cron in its zone
 * (cron-next.ts); undefined when a cron matches no time in the next nine years.
 */
export function firstFiring(when: ScheduleWhen, now: Date): Date | undefined {
  if ('at' in when) return new Date(when.at);
  const parsed = parseCron(when.cron);
  return typeof parsed === 'string' ? undefined : firstCronFiring(parsed, when.timezone ?? 'UTC', now);
}

/**
 * `cron "0 9 * * 1-5" in time zone Europe/Paris, first at 2026-12-04 09:00 Europe/Paris (Friday), 2026-12-04 08:00:00
 * UTC (Friday)`: the model's `when` as the person approving it reads it, its first firing with its date and zone.
 */
export function describeModelWhen(when: ScheduleWhen, now: Date): string {
  if ('at' in when) return describeWhen(when);
  const first = firstFiring(when, now);
  if (!first) return `${describeWhen(when)}, which matches no time in the next nine years`;
  const zone = when.timezone ?? 'UTC';
  const local = zone === 'UTC' ? '' : `${formatInZone(first, zone)}, `;
  return `${describeWhen(when)}, first at ${local}${formatMoment(first)}`;
}

/** `2026-12-04 09:00 Europe/Paris (Friday)`: a moment on the wall clock of an IANA zone. */
export function formatInZone(moment: Date, zone: string): string {
  const local = localParts(moment, zone);
  const two = (value: number) => String(value).padStart(2, '0');
  const weekday = weekdays[new Date(Date.UTC(local.year, local.month - 1, local.day)).getUTCDay()];
  return `${local.year}-${two(local.month)}-${two(local.day)} ${two(local.hour)}:${two(local.minute)} ${zone} (${weekday})`;
}

/** The Temporal schedule spec of `when`: a one-off is a calendar of that one second, in UTC. */
export function scheduleSpecOf(when: ScheduleWhen): ScheduleSpec {
  if ('cron' in when) return { cronExpressions: [when.cron.trim()], timezone: when.timezone ?? 'UTC' };
  const moment = new Date(when.at);
  return {
    calendars: [
      {
        year: moment.getUTCFullYear(),
        month: monthNames[moment.getUTCMonth()],
        dayOfMonth: moment.getUTCDate(),
        hour: moment.getUTCHours(),
        minute: moment.getUTCMinutes(),
        second: moment.getUTCSeconds(),
      },
    ],
    timezone: 'UTC',
  };
}

/**
 * `when` in absolute terms, for the person who approves it and for listings: the date, time and zone of a one-off
 * (in UTC, and in the offset it was given in when that differs), or the expression and the zone it is read in.
 */
export function describeWhen(when: ScheduleWhen): string {
  if ('cron' in when) return `cron ${JSON.stringify(when.cron.trim())} in time zone ${when.timezone ?? 'UTC'}`;
  const moment = new Date(when.at);
  if (Number.isNaN(moment.getTime())) return `at ${JSON.stringify(when.at)} (not a real time)`;
  const offset = /(Z|[+-]\d{2}:\d{2})$/i.exec(when.at)?.[1].toUpperCase();
  const given = offset && offset !== 'Z' && offset !== '+00:00' ? ` (${formatMoment(moment, offset)})` : '';
  return `once at ${formatMoment(moment)}${given}`;
}

/** `2026-12-03 09:00:00 UTC (Thursday)`, or in a fixed offset: `2026-12-03 10:00:00 +01:00 (Thursday)`. */
export function formatMoment(moment: Date, offset?: string): string {
  const minutes = offset ? offsetMinutes(offset) : 0;
  const local = new Date(moment.getTime() + minutes * 60_000);
  const stamp = local
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '');
  return `${stamp} ${offset ?? 'UTC'} (${weekdays[local.getUTCDay()]})`;
}

function offsetMinutes(offset: string): number {
  const [, sign, hours, minutes] = /^([+-])(\d{2}):(\d{2})$/.exec(offset)!;
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const monthNames = [
  'JANUARY',
  'FEBRUARY',
  'MARCH',
  'APRIL',
  'MAY',
  'JUNE',
  'JULY',
  'AUGUST',
  'SEPTEMBER',
  'OCTOBER',
  'NOVEMBER',
  'DECEMBER',
] as const;
const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
