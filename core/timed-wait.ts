/**
 * A tool call that waits in the workflow itself (the time tools, time/): on a durable timer, or for an event from
 * outside with a timeout. The run shows it (`agent show`, the status query) and, when it continues as new in the
 * middle of the wait, carries it to the next run (core/carried-state.ts, OpenRound's `waits`), which waits on to the
 * same moment: the deadline is absolute, so nothing is added or lost across the boundary.
 */
export interface TimedWait {
  /** The tool call that waits. */
  callId: string;
  tool: string;
  /** Why, in the model's words (bounded, hidden characters made visible): the timer's summary in the Web UI. */
  reason: string;
  /** When the wait began (ISO 8601, UTC), in the run that began it. */
  startedAt: string;
  /** When it ends (ISO 8601, UTC): the end of a sleep, or the timeout of a wait for an event. */
  until: string;
  /** The event a `wait_for_event` call waits for; absent for a sleep. */
  event?: string;
}

/** The ceiling of any wait's bound, whatever a definition asks: a year. A hostile or confused model cannot sleep forever. */
export const waitCeilingSeconds = 365 * 24 * 60 * 60;
/** The most schedules an agent's own bound may allow (as AGENT_MAX_SCHEDULES_PER_AGENT). */
export const maxSchedulesCeiling = 10_000;

/**
 * An agent's own time bounds (defineAgent's `time`): each tightens the worker's (the time tools' bounds, the
 * schedule bounds of its environment), never loosens it. Absent: the worker's bound.
 */
export interface AgentTimeBounds {
  /** The longest one `sleep` or `wait_until` of this agent may last, in seconds. */
  maxSleepSeconds?: number;
  /** The longest one `wait_for_event` of this agent may wait, in seconds. */
  maxWaitSeconds?: number;
  /** The most live schedules of this agent (for one tenant), `schedule_run`'s and people's. */
  maxSchedules?: number;
}

/** What is wrong with an agent's time bounds, in words; undefined when nothing. */
export function agentTimeBoundsProblem(bounds: AgentTimeBounds): string | undefined {
  if (typeof bounds !== 'object' || bounds === null) return 'time must be an object of bounds';
  for (const name of ['maxSleepSeconds', 'maxWaitSeconds'] as const) {
    const value = bounds[name];
    if (value !== undefined && !(typeof value === 'number' && value > 0 && value <= waitCeilingSeconds))
      return `time.${name} must be more than 0 and at most ${waitCeilingSeconds} (a year), got ${String(value)}`;
  }
  const schedules = bounds.maxSchedules;
  if (schedules !== undefined && !(Number.isInteger(schedules) && schedules >= 1 && schedules <= maxSchedulesCeiling))
    return `time.maxSchedules must be a whole number from 1 to ${maxSchedulesCeiling}, got ${String(schedules)}`;
  const unknown = Object.keys(bounds).filter((key) => !['maxSleepSeconds', 'maxWaitSeconds', 'maxSchedules'].includes(key));
  if (unknown.length > 0) return `time has no bound named ${unknown.join(', ')} (maxSleepSeconds, maxWaitSeconds, maxSchedules)`;
  return undefined;
}

/** The lower of two bounds, either absent. */
export function tighterBound(worker: number, agent: number | undefined): number {
  return agent === undefined ? worker : Math.min(worker, agent);
}
