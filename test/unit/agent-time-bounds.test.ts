import { defineAgent } from '../../agents/define-agent';
import { boundsForAgent, defaultScheduleBounds } from '../../schedules/bounds';
import { createTimeTools, timeTools } from '../../time/time-tools';
import { waitLengthProblem } from '../../time/names';
import { createWorkerRegistry } from '../../worker/features';
import { boundForAgent } from '../../workflows/workflow-tools';

// An agent's own time bounds (defineAgent's `time`, docs/time.md "Bounds"): each tightens the worker's, and a model
// asking beyond them (to sleep forever, to schedule a thousand runs) is refused with a result that names the bound.

const agent = (time: Parameters<typeof defineAgent>[0]['time'], name = 'bounded') =>
  defineAgent({ name, description: 'waits', model: 'anthropic:claude-haiku-4-5', tools: ['sleep', 'wait_for_event'], time });

it('records the agent’s bounds in its spec, as the workflow reads them, and tightens the tools’ bounds with them', () => {
  const registry = createWorkerRegistry({ agents: [agent({ maxSleepSeconds: 3_600, maxWaitSeconds: 86_400, maxSchedules: 2 })] });
  const spec = registry.spec('bounded');
  expect(spec.time).toEqual({ maxSleepSeconds: 3_600, maxWaitSeconds: 86_400, maxSchedules: 2 });
  const [sleep, waitUntil, waitForEvent] = timeTools;
  expect(boundForAgent(sleep.inWorkflow!, spec).maxSeconds).toBe(3_600);
  expect(boundForAgent(waitUntil.inWorkflow!, spec).maxSeconds).toBe(3_600);
  expect(boundForAgent(waitForEvent.inWorkflow!, spec).maxSeconds).toBe(86_400);
  // Without bounds of its own an agent has the worker's: a week, two weeks.
  const plain = createWorkerRegistry({ agents: [agent(undefined, 'plain')] }).spec('plain');
  expect(plain.time).toBeUndefined();
  expect(boundForAgent(sleep.inWorkflow!, plain).maxSeconds).toBe(604_800);
  expect(boundForAgent(waitForEvent.inWorkflow!, plain).maxSeconds).toBe(1_209_600);
});

it('never loosens the worker’s bound: an agent asking for a month under a worker of a day keeps the day', () => {
  const [daySleep] = createTimeTools({ maxSleepSeconds: 86_400 });
  expect(boundForAgent(daySleep.inWorkflow!, { time: { maxSleepSeconds: 30 * 86_400 } }).maxSeconds).toBe(86_400);
  expect(boundsForAgent(defaultScheduleBounds, 50)).toEqual({ perAgent: 10, perTenant: 100 });
  expect(boundsForAgent(defaultScheduleBounds, 3)).toEqual({ perAgent: 3, perTenant: 100 });
  expect(boundsForAgent(defaultScheduleBounds, undefined)).toEqual(defaultScheduleBounds);
});

it('refuses a model asking to sleep forever with a result that names the agent’s bound', () => {
  // What the workflow answers the call with (time/workflow/time-waits.ts): an error result at once, no timer.
  expect(waitLengthProblem(10 * 365 * 86_400, 3_600, 'seconds')).toBe(
    'seconds is 315360000 (3650 d 0 h); this agent may wait at most 3600 (1 h 0 min)',
  );
  // JSON's 1e999 parses to Infinity: a "forever" no bound can be compared with.
  expect(waitLengthProblem(JSON.parse('1e999') as number, 3_600, 'seconds')).toBe(
    'seconds must be a number of seconds above 0, got Infinity',
  );
  expect(waitLengthProblem(Number.NaN, 3_600, 'timeoutSeconds')).toMatch(/^timeoutSeconds must be a number/);
  expect(waitLengthProblem(-5, 3_600, 'seconds')).toMatch(/above 0, got -5$/);
  expect(waitLengthProblem(3_600, 3_600, 'seconds')).toBeUndefined();
});

it('refuses bounds no agent should have when it is defined', () => {
  expect(() => agent({ maxSleepSeconds: 0 })).toThrow('agent "bounded": time.maxSleepSeconds must be more than 0');
  expect(() => agent({ maxWaitSeconds: Number.POSITIVE_INFINITY })).toThrow('at most 31536000 (a year), got Infinity');
  expect(() => agent({ maxSchedules: 1_000_000 })).toThrow('time.maxSchedules must be a whole number from 1 to 10000');
  expect(() => agent({ maxSchedules: 2.5 })).toThrow('time.maxSchedules must be a whole number');
  expect(() => agent({ maxSleep: 5 } as never)).toThrow('time has no bound named maxSleep');
});
