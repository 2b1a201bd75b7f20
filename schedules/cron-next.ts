/**
 * The first time a model's cron fires, in absolute terms, so the person approving `schedule_run` reads a date and a
 * zone, as for a one-off, and not only an expression. It reads the cron the model may give (modelWhenProblem): 5
 * fields (minute hour day-of-month month day-of-week), 6 with a year, or a shorthand; numbers, names, `* , - / ?`.
 * The model may restrict day-of-month or day-of-week, not both (crons disagree on whether both must match or either),
 * so what is shown is what Temporal fires. Computed where the approval is described (an activity), never in a workflow.
 */

const shorthands: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const monthNames = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const dayNames = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldRule {
  min: number;
  max: number;
  names?: string[];
  /** The first name's number (JAN is 1, SUN is 0). */
  nameBase?: number;
}

const rules: FieldRule[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: monthNames, nameBase: 1 },
  // 7 is Sunday too, as most crons read it.
  { min: 0, max: 7, names: dayNames, nameBase: 0 },
  { min: 1970, max: 2999 },
];

/** A cron read into the values each field matches; `restricted` says whether a day field is more than `*`. */
export interface ParsedCron {
  minutes: number[];
  hours: number[];
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  years?: Set<number>;
  dayRestricted: boolean;
  weekdayRestricted: boolean;
}

/** The cron read, or what is wrong with it. */
export function parseCron(expression: string): ParsedCron | string {
  const cron = shorthands[expression.trim().toLowerCase()] ?? expression.trim();
  const fields = cron.split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return `a cron has 5 fields, or 6 with a year; got ${fields.length}`;
  const values: Array<Set<number>> = [];
  for (const [index, field] of fields.entries()) {
    const read = readField(field, rules[index]);
    if (typeof read === 'string') return `cron field ${index + 1} (${JSON.stringify(field)}): ${read}`;
    values.push(read);
  }
  const weekdays = new Set([...values[4]].map((day) => day % 7));
  const unrestricted = (field: string) => field === '*' || field === '?';
  return {
    minutes: [...values[0]].sort((a, b) => a - b),
    hours: [...values[1]].sort((a, b) => a - b),
    days: values[2],
    months: values[3],
    weekdays,
    ...(fields.length === 6 && !unrestricted(fields[5]) && { years: values[5] }),
    dayRestricted: !unrestricted(fields[2]),
    weekdayRestricted: !unrestricted(fields[4]),
  };
}

function readField(field: string, rule: FieldRule): Set<number> | string {
  const matched = new Set<number>();
  for (const part of field.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined) return 'more than one /';
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) return `the step ${JSON.stringify(stepText)} is not a whole number above 0`;
    let low: number;
    let high: number;
    if (range === '*' || range === '?') [low, high] = [rule.min, rule.max];
    else {
      const [lowText, highText, more] = range.split('-');
      if (more !== undefined) return `${JSON.stringify(range)} is not a range`;
      const first = valueOf(lowText, rule);
      if (typeof first === 'string') return first;
      const last = highText === undefined ? (stepText === undefined ? first : rule.max) : valueOf(highText, rule);
      if (typeof last === 'string') return last;
      if (last < first) return `the range ${JSON.stringify(range)} runs backwards`;
      [low, high] = [first, last];
    }
    for (let value = low; value <= high; value += step) matched.add(value);
  }
  return matched;
}

function valueOf(text: string, rule: FieldRule): number | string {
  const named = rule.names?.indexOf(text.toUpperCase()) ?? -1;
  const value = named >= 0 ? named + rule.nameBase! : /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(value) || value < rule.min || value > rule.max)
    return `${JSON.stringify(text)} is not a value from ${rule.min} to ${rule.max}${rule.names ? ' or a name' : ''}`;
  return value;
}

/** How far ahead the first firing is looked for: past two leap days, so `0 0 29 2 *` is found. */
const horizonDays = 9 * 366;

/**
 * The first moment after `now` at which the cron fires in `timeZone` (an IANA name), or undefined when none does within
 * nine years (a year field in the past, the 31st of February). A local time a daylight-saving change skips is no time.
 */
export function firstCronFiring(cron: ParsedCron, timeZone: string, now: Date): Date | undefined {
  const today = localParts(now, timeZone);
  for (let offset = 0; offset <= horizonDays; offset++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + offset));
    const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    if (cron.years && !cron.years.has(year)) continue;
    if (!cron.months.has(month) || !dayMatches(cron, day, date.getUTCDay())) continue;
    for (const hour of cron.hours)
      for (const minute of cron.minutes) {
        const moment = zonedMoment({ year, month, day, hour, minute }, timeZone);
        if (moment && moment.getTime() > now.getTime()) return moment;
      }
  }
  return undefined;
}

function dayMatches(cron: ParsedCron, day: number, weekday: number): boolean {
  return cron.days.has(day) && cron.weekdays.has(weekday);
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time of `moment` in `timeZone`. */
export function localParts(moment: Date, timeZone: string): LocalTime {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(moment).map((part) => [part.type, Number(part.value)]));
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute };
}

/** The moment the wall clock of `timeZone` shows `local`; undefined when it never does (a daylight-saving gap). */
function zonedMoment(local: LocalTime, timeZone: string): Date | undefined {
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  // The zone's offset at a guess, then at the moment it gives: two steps settle it on either side of a change.
  let moment = asUtc;
  for (let step = 0; step < 2; step++) moment = asUtc - offsetAt(new Date(moment), timeZone);
  const shown = localParts(new Date(moment), timeZone);
  const same =
    shown.year === local.year &&
    shown.month === local.month &&
    shown.day === local.day &&
    shown.hour === local.hour &&
    shown.minute === local.minute;
  return same ? new Date(moment) : undefined;
}

function offsetAt(moment: Date, timeZone: string): number {
  const local = localParts(moment, timeZone);
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  return wall - Math.floor(moment.getTime() / 60_000) * 60_000;
}
