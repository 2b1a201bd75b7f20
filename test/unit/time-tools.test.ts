import { ConfigurationError } from '../../core/errors';
import { createTimeTools, timeTools } from '../../time/time-tools';
import { describeSeconds } from '../../time/names';
import { defineAgent } from '../../agents/define-agent';
import { scheduleRunTool } from '../../schedules/schedule-run-tool';
import type { Tool } from '../../tools';
import { createWorkerRegistry } from '../../worker/features';

// The time tools' definitions (time/time-tools.ts): the person approving a wait sees its moment in absolute terms, and
// a bound no one should set fails when the tools are made.

const [sleep, waitUntil, waitForEvent] = timeTools;

it('shows the person approving a sleep the moment it ends, its date and zone, worked out when the model asked', () => {
  const before = Date.now();
  const { headline, preview } = sleep.describeForApproval!({ seconds: 3 * 86_400, reason: 'check the build again' });
  const end = new Date(before + 3 * 86_400_000);
  expect(headline).toMatch(/^sleep 3 d 0 h, until \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT \(\d{4}-\d{2}-\d{2}T/);
  expect(headline).toContain(end.toISOString().slice(0, 13));
  expect(preview).toBe('reason: check the build again');
  expect(waitUntil.describeForApproval!({ until: '2030-01-01T09:00:00+01:00', reason: 'r' }).headline).toMatch(
    /^wait until Tue, 01 Jan 2030 08:00:00 GMT \(2030-01-01T08:00:00.000Z\), \d+ d \d+ h from now$/,
  );
  expect(waitForEvent.describeForApproval!({ event: 'payment.received', timeoutSeconds: 3_600, reason: 'r' }).headline).toMatch(
    /^wait for event payment\.received, at most 1 h 0 min, until .+ GMT/,
  );
});

it('bounds every wait: a week and two weeks by default, recorded for the run; never over a year', () => {
  expect(timeTools.map((tool) => [tool.name, tool.inWorkflow])).toEqual([
    ['sleep', { maxSeconds: 604_800, agentBound: 'maxSleepSeconds' }],
    ['wait_until', { maxSeconds: 604_800, agentBound: 'maxSleepSeconds' }],
    ['wait_for_event', { maxSeconds: 1_209_600, agentBound: 'maxWaitSeconds' }],
  ]);
  expect(sleep.input.safeParse({ seconds: 604_801, reason: 'r' }).success).toBe(false);
  expect(createTimeTools({ maxSleepSeconds: 60 })[0].inWorkflow).toEqual({ maxSeconds: 60, agentBound: 'maxSleepSeconds' });
  expect(() => createTimeTools({ maxWaitSeconds: 2 * 365 * 86_400 })).toThrow(ConfigurationError);
  expect(() => createTimeTools({ maxSleepSeconds: Number.POSITIVE_INFINITY })).toThrow('at most 31536000 (a year)');
});

it('tells a duration in its largest unit and the one below', () => {
  expect([45, 3_600, 90_061, 3 * 86_400].map(describeSeconds)).toEqual(['45 s', '1 h 0 min', '1 d 1 h', '3 d 0 h']);
});

describe('time tools by name in an agent', () => {
  const agent = (name: string, tools: Array<Tool | string>) =>
    defineAgent({ name, description: 'waits', model: 'anthropic:claude-haiku-4-5', tools });

  it('resolves sleep, wait_for_event and schedule_run listed by name to the built-in tools, as ...timeTools does', () => {
    const registry = createWorkerRegistry({ agents: [agent('named', ['sleep', 'wait_for_event', 'schedule_run'])] });
    expect(registry.spec('named').tools).toEqual(['sleep', 'wait_for_event', 'schedule_run']);
    expect(registry.tools.get('sleep')).toBe(timeTools[0]);
    expect(registry.tools.get('wait_for_event')).toBe(timeTools[2]);
    expect(registry.tools.get('schedule_run')).toBe(scheduleRunTool);
    // Only what an agent names is registered: wait_until, named by none, is not offered to anyone.
    expect(registry.tools.has('wait_until')).toBe(false);
    expect(registry.toolDefinition('sleep').description).toContain('durable timer');
  });

  it('lets tools given by value win over the built-in ones of the same name', () => {
    const [slow] = createTimeTools({ maxSleepSeconds: 60 });
    const registry = createWorkerRegistry({ agents: [agent('named', ['sleep']), agent('valued', [slow])] });
    expect(registry.tools.get('sleep')).toBe(slow);
    expect(registry.tools.get('sleep')!.inWorkflow).toMatchObject({ maxSeconds: 60 });
  });

  it('still refuses a name that no tool has', () => {
    expect(() => createWorkerRegistry({ agents: [agent('typo', ['slep'])] })).toThrow('agent "typo": unknown tool "slep"');
  });
});
