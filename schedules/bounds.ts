import { ConfigurationError } from '../core/errors';
import { tighterBound } from '../core/timed-wait';

/**
 * How many live schedules an agent (for one tenant) and a tenant may have: the model controls time with
 * `schedule_run`, so a hostile one asking for a thousand schedules gets this many and a refusal for the rest. A
 * schedule is live while it can still fire (it has a next time, or is paused and may be unpaused); a one-off that has
 * fired is not counted. Schedules without a tenant count together, as one tenant.
 */
export interface ScheduleBounds {
  perAgent: number;
  perTenant: number;
}

export const defaultScheduleBounds: ScheduleBounds = { perAgent: 10, perTenant: 100 };

/** The bounds from AGENT_MAX_SCHEDULES_PER_AGENT and AGENT_MAX_SCHEDULES_PER_TENANT, else the defaults. */
export function scheduleBoundsFromEnv(env: NodeJS.ProcessEnv): ScheduleBounds {
  return {
    perAgent: bound(env, 'AGENT_MAX_SCHEDULES_PER_AGENT') ?? defaultScheduleBounds.perAgent,
    perTenant: bound(env, 'AGENT_MAX_SCHEDULES_PER_TENANT') ?? defaultScheduleBounds.perTenant,
  };
}

function bound(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 10_000)
    throw new ConfigurationError(`${name} must be a whole number from 1 to 10000, got ${JSON.stringify(text)}`);
  return value;
}

/** The bounds for schedules of an agent whose own `time.maxSchedules` (defineAgent) may tighten the per-agent one. */
export function boundsForAgent(bounds: ScheduleBounds, agentMaxSchedules: number | undefined): ScheduleBounds {
  return { ...bounds, perAgent: tighterBound(bounds.perAgent, agentMaxSchedules) };
}
