import { main } from '../../cli/main';
import { describeCall } from '../../core/approval-description';
import { scheduleRunTool } from '../../schedules/schedule-run-tool';
import {
  describeModelWhen,
  describeWhen,
  firstFiring,
  modelWhenProblem,
  scheduleSpecOf,
  whenProblem,
} from '../../schedules/when';
import { assessApprovals } from '../../activities/model/approval-check';
import { capturedOutput } from '../support/captured-output';

// When a schedule fires, as a person approving it reads it (absolute: date, time, zone), what the model may ask, and
// what `agent schedule` refuses before it connects.

const now = new Date('2026-12-02T12:00:00Z');

it('shows a one-off in UTC with its weekday, and in the offset it was given in', () => {
  expect(describeWhen({ at: '2026-12-03T09:00:00Z' })).toBe('once at 2026-12-03 09:00:00 UTC (Thursday)');
  expect(describeWhen({ at: '2026-12-03T23:30:00-05:00' })).toBe(
    'once at 2026-12-04 04:30:00 UTC (Friday) (2026-12-03 23:30:00 -05:00 (Thursday))',
  );
  expect(describeWhen({ cron: '0 9 * * 1-5', timezone: 'Europe/Paris' })).toBe('cron "0 9 * * 1-5" in time zone Europe/Paris');
  expect(describeWhen({ cron: '0 9 * * *' })).toBe('cron "0 9 * * *" in time zone UTC');
});

it('refuses a time without its offset, one in the past, and an unknown zone', () => {
  expect(whenProblem({ at: '2026-12-03T09:00:00' }, now)).toMatch(/with its offset/);
  expect(whenProblem({ at: 'tomorrow' }, now)).toMatch(/with its offset/);
  expect(whenProblem({ at: '2026-12-01T09:00:00Z' }, now)).toBe(
    'at is not in the future: 2026-12-01 09:00:00 UTC (Tuesday) is before 2026-12-02 12:00:00 UTC (Wednesday)',
  );
  expect(whenProblem({ cron: '0 9 * * *', timezone: 'Mars/Olympus' }, now)).toMatch(/unknown time zone "Mars\/Olympus"/);
  expect(whenProblem({ at: '2026-12-03T09:00:00+01:00' }, now)).toBeUndefined();
});

it('holds the model to at most one firing a minute, and a cron with no comment or zone prefix to mislead', () => {
  expect(modelWhenProblem({ cron: '@every 1s' })).toMatch(/5 fields/);
  expect(modelWhenProblem({ cron: '* * * * * * *' })).toMatch(/got 7/);
  expect(modelWhenProblem({ cron: 'CRON_TZ=UTC * * * * *' })).toMatch(/only numbers/);
  expect(modelWhenProblem({ cron: '0 9 * * * #harmless' })).toMatch(/only numbers/);
  expect(modelWhenProblem({ cron: '0 9 * * MON-FRI' })).toBeUndefined();
  expect(modelWhenProblem({ cron: '@daily' })).toBeUndefined();
});

it('makes a one-off a calendar of its one second in UTC', () => {
  expect(scheduleSpecOf({ at: '2026-12-03T10:15:30+01:00' })).toEqual({
    calendars: [{ year: 2026, month: 'DECEMBER', dayOfMonth: 3, hour: 9, minute: 15, second: 30 }],
    timezone: 'UTC',
  });
});

it('asks a person to approve every schedule_run call, showing the time with its date and zone and the prompt', () => {
  const call = {
    id: 'c1',
    name: 'schedule_run',
    arguments: JSON.stringify({ prompt: 'send the report', at: '2026-12-03T18:00:00+09:00', agent: 'reporter' }),
  };
  const tools = new Map([[scheduleRunTool.name, scheduleRunTool]]);
  const assessed = assessApprovals([call], tools, { run: 'agent-x' });
  expect(assessed.needsApproval).toEqual(['c1']);
  expect(assessed.descriptions.c1.description).toBe(
    'schedule_run agent "reporter" once at 2026-12-03 09:00:00 UTC (Thursday) (2026-12-03 18:00:00 +09:00 (Thursday))\n  │ send the report',
  );
  // A call the tool will refuse says so to the person, rather than showing a time it will not use.
  const both = { ...call, arguments: JSON.stringify({ prompt: 'p', at: '2026-12-03T18:00:00Z', cron: '* * * * *' }) };
  expect(describeCall(both, scheduleRunTool.describeForApproval!(JSON.parse(both.arguments)), 'agent-x').description).toBe(
    'schedule_run this agent (refused: give exactly one of at (a one-off) and cron (a recurring run))\n  │ p',
  );
});

describe('a cron’s first firing, shown to the person approving schedule_run', () => {
  // Wednesday 2026-12-02 12:00 UTC.
  const first = (cron: string, timezone?: string, from = now) =>
    firstFiring({ cron, ...(timezone !== undefined && { timezone }) }, from)?.toISOString();

  it('finds the first matching minute after now, in the cron’s zone', () => {
    expect(first('*/5 * * * *')).toBe('2026-12-02T12:05:00.000Z');
    expect(first('0 9 * * 1-5')).toBe('2026-12-03T09:00:00.000Z');
    // 09:00 in Paris is 08:00 UTC in winter; the 12:00 UTC of now is past Wednesday's.
    expect(first('0 9 * * MON-FRI', 'Europe/Paris')).toBe('2026-12-03T08:00:00.000Z');
    expect(first('30 2 * * SUN', 'America/New_York')).toBe('2026-12-06T07:30:00.000Z');
    expect(first('@monthly')).toBe('2027-01-01T00:00:00.000Z');
    expect(first('@weekly')).toBe('2026-12-06T00:00:00.000Z');
    expect(first('0 0 29 2 *')).toBe('2028-02-29T00:00:00.000Z');
    expect(first('15 10 * JUN *', 'Asia/Tokyo')).toBe('2027-06-01T01:15:00.000Z');
    expect(first('0 12 * * 7')).toBe('2026-12-06T12:00:00.000Z');
    // Exactly now is not after now.
    expect(first('0 12 * * *')).toBe('2026-12-03T12:00:00.000Z');
  });

  it('skips a local time a daylight-saving change never shows, and finds none for a year gone by', () => {
    // 2027-03-28 02:30 does not exist in Paris (the clocks go from 02:00 to 03:00): the next day's is the first.
    expect(first('30 2 28 3 *', 'Europe/Paris', new Date('2027-03-01T00:00:00Z'))).toBe('2028-03-28T00:30:00.000Z');
    expect(first('0 0 1 1 * 2020')).toBeUndefined();
    expect(first('0 0 31 2 *')).toBeUndefined();
  });

  it('says the first firing with its date and zone, as for a one-off', () => {
    expect(describeModelWhen({ cron: '0 9 * * 1-5', timezone: 'Europe/Paris' }, now)).toBe(
      'cron "0 9 * * 1-5" in time zone Europe/Paris, first at 2026-12-03 09:00 Europe/Paris (Thursday), 2026-12-03 08:00:00 UTC (Thursday)',
    );
    expect(describeModelWhen({ cron: '*/5 * * * *' }, now)).toBe(
      'cron "*/5 * * * *" in time zone UTC, first at 2026-12-02 12:05:00 UTC (Wednesday)',
    );
    expect(describeModelWhen({ cron: '0 0 1 1 * 2020' }, now)).toBe(
      'cron "0 0 1 1 * 2020" in time zone UTC, which matches no time in the next nine years',
    );
    expect(describeModelWhen({ at: '2026-12-03T09:00:00Z' }, now)).toBe('once at 2026-12-03 09:00:00 UTC (Thursday)');
  });

  it('refuses a model cron whose fields both name days, or hold values no field has', () => {
    expect(modelWhenProblem({ cron: '0 9 13 * FRI' })).toMatch(/^give day-of-month or day-of-week, not both/);
    expect(modelWhenProblem({ cron: '0 9 13 * *' })).toBeUndefined();
    expect(modelWhenProblem({ cron: '61 * * * *' })).toMatch(/cron field 1 \("61"\): "61" is not a value from 0 to 59/);
    expect(modelWhenProblem({ cron: '0 9 * * FUNDAY' })).toMatch(/cron field 5/);
    expect(modelWhenProblem({ cron: '0 5-1 * * *' })).toMatch(/runs backwards/);
  });

  it('shows the first firing in the approval of a cron call, worked out when the model asked', () => {
    const before = new Date();
    const { headline } = scheduleRunTool.describeForApproval!({ prompt: 'p', cron: '*/5 * * * *' });
    const expected = describeModelWhen({ cron: '*/5 * * * *' }, before);
    expect(headline).toBe(`schedule_run this agent ${expected}`);
    expect(headline).toMatch(/first at \d{4}-\d{2}-\d{2} \d{2}:\d[05]:00 UTC \(\w+day\)$/);
  });
});

describe('agent schedule, before it connects to anything', () => {
  const addressBefore = process.env.TEMPORAL_ADDRESS;
  // An address nothing serves: a refusal must come before any connection.
  beforeAll(() => (process.env.TEMPORAL_ADDRESS = '127.0.0.1:1'));
  afterAll(() => {
    if (addressBefore === undefined) delete process.env.TEMPORAL_ADDRESS;
    else process.env.TEMPORAL_ADDRESS = addressBefore;
  });

  it.each([
    [['create', '--cron', '0 9 * * *', '--at', '2026-12-03T09:00:00Z', 'p'], 'give one of --cron EXPR and --at TIME'],
    [['create', '--at', '2026-12-03T09:00:00Z', '--timezone', 'UTC', 'p'], '--timezone goes with --cron'],
    [['create', '--cron', '0 9 * * *', '--overlap', 'sometimes', 'p'], '--overlap must be one of skip, buffer-one'],
    [['create', '--at', '2020-01-01T00:00:00Z', 'p'], '--at is not in the future: 2020-01-01 00:00:00 UTC (Wednesday)'],
    [['create', '--at', '2026-12-03T09:00', 'p'], '--at must be an ISO 8601 time with its offset'],
    [['pause'], 'schedule pause takes one schedule id'],
    [['reschedule', 'x'], 'unknown schedule subcommand "reschedule"'],
  ])('refuses %j with exit 2', async (args, message) => {
    const output = capturedOutput();
    expect(await main(['schedule', ...args], output)).toBe(2);
    expect(output.stderr).toContain(message);
  });
});
