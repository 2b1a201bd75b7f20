import { z } from 'zod';
import { ConfigurationError } from '../core/errors';
import type { Tool, ToolActivitySettings } from '../tools/define-tool';
import {
  ceilingSeconds,
  defaultMaxSleepSeconds,
  defaultMaxWaitSeconds,
  describeMoment,
  describeSeconds,
  eventNamePattern,
  maxReasonChars,
  momentPattern,
  timeToolNames,
} from './names';

/**
 * The time tools an agent may be given: `sleep` and `wait_until` (a durable timer) and `wait_for_event` (a wait for
 * an event from outside, with a timeout). Off unless an agent lists them (`tools: [...timeTools]`). The workflow runs
 * them itself (./workflow/time-waits.ts): these definitions give the model their schemas, the person approving a
 * call its moment in absolute terms, and the run its bounds. docs/time.md.
 */
export interface TimeToolOptions {
  /** The longest one `sleep` or `wait_until` may last, in seconds (default a week; at most a year). */
  maxSleepSeconds?: number;
  /** The longest one `wait_for_event` may wait, in seconds (default two weeks; at most a year). */
  maxWaitSeconds?: number;
}

const reason = z
  .string()
  .min(1)
  .max(maxReasonChars)
  .describe('Why you wait, in a few words: it names the wait for the people who watch the run');

// Never used (Tool's inWorkflow): a tool's type asks for activity settings all the same.
const unusedActivity: ToolActivitySettings = { timeout: '60s', maximumAttempts: 1, initialRetryInterval: '1s' };

/** The three time tools, with these bounds. One worker has one set: two sets under the same names are refused. */
export function createTimeTools(options: TimeToolOptions = {}): Tool[] {
  const maxSleep = bound('maxSleepSeconds', options.maxSleepSeconds ?? defaultMaxSleepSeconds);
  const maxWait = bound('maxWaitSeconds', options.maxWaitSeconds ?? defaultMaxWaitSeconds);
  // Described by the model activity when the call is asked for: that moment is when the wait would begin.
  const until = (seconds: number) => describeMoment(Date.now() + seconds * 1000);
  const sleep: Tool<{ seconds: number; reason: string }> = {
    name: timeToolNames.sleep,
    description:
      `Pause this task for a number of seconds (at most ${maxSleep}, ${describeSeconds(maxSleep)}) on a durable timer, ` +
      'then go on: nothing is lost if the service restarts meanwhile. The result says how long you waited.',
    input: z.object({ seconds: z.number().positive().max(maxSleep), reason }),
    handler: runsInTheWorkflow,
    activity: unusedActivity,
    inWorkflow: { maxSeconds: maxSleep, agentBound: 'maxSleepSeconds' },
    readOnly: true,
    describeForApproval: ({ seconds, reason: why }) => ({
      headline: `sleep ${describeSeconds(seconds)}, until ${until(seconds)}`,
      preview: `reason: ${why}`,
    }),
  };
  const waitUntil: Tool<{ until: string; reason: string }> = {
    name: timeToolNames.waitUntil,
    description:
      'Pause this task until a moment, an ISO 8601 date and time with its zone (2026-12-05T09:00:00+01:00), on a durable ' +
      `timer, then go on. At most ${describeSeconds(maxSleep)} ahead. The result says how long you waited.`,
    input: z.object({
      until: z.string().regex(momentPattern, 'must be an ISO 8601 date and time with its zone, as 2026-12-05T09:00:00Z'),
      reason,
    }),
    handler: runsInTheWorkflow,
    activity: unusedActivity,
    inWorkflow: { maxSeconds: maxSleep, agentBound: 'maxSleepSeconds' },
    readOnly: true,
    describeForApproval: ({ until: moment, reason: why }) => ({
      headline: `wait until ${describeMoment(Date.parse(moment))}, ${describeSeconds((Date.parse(moment) - Date.now()) / 1000)} from now`,
      preview: `reason: ${why}`,
    }),
  };
  const waitForEvent: Tool<{ event: string; timeoutSeconds: number; reason: string }> = {
    name: timeToolNames.waitForEvent,
    description:
      'Pause this task until an event of this name arrives from outside (a webhook, a person, another system), or ' +
      `the timeout passes (at most ${maxWait} seconds, ${describeSeconds(maxWait)}). The result is the event's payload.`,
    input: z.object({
      event: z
        .string()
        .regex(eventNamePattern, 'letters, digits and . _ : - only, at most 100')
        .describe('The event to wait for'),
      timeoutSeconds: z.number().positive().max(maxWait),
      reason,
    }),
    handler: runsInTheWorkflow,
    activity: unusedActivity,
    inWorkflow: { maxSeconds: maxWait, agentBound: 'maxWaitSeconds' },
    readOnly: true,
    describeForApproval: ({ event, timeoutSeconds, reason: why }) => ({
      headline: `wait for event ${event}, at most ${describeSeconds(timeoutSeconds)}, until ${until(timeoutSeconds)}`,
      preview: `reason: ${why}`,
    }),
  };
  return [sleep, waitUntil, waitForEvent] as Tool[];
}

/** The time tools with the default bounds: a week's sleep, two weeks' wait for an event. */
export const timeTools: Tool[] = createTimeTools();

function bound(name: string, seconds: number): number {
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > ceilingSeconds)
    throw new ConfigurationError(
      `time tools: ${name} must be more than 0 and at most ${ceilingSeconds} (a year), got ${seconds}`,
    );
  return seconds;
}

// The workflow runs these tools (Tool's inWorkflow): no activity is registered for them, so no handler is called.
async function runsInTheWorkflow(): Promise<string> {
  throw new ConfigurationError('a time tool runs in the workflow, never as an activity');
}
