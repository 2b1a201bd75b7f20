import type { ScheduleWhen } from './when';

/**
 * What an agent schedule records about itself, in the schedule's memo: the agent and tenant it runs for (what the
 * bounds count), when it fires, and who made it (a person, or the run whose model asked with `schedule_run`). Read
 * back by every later build through readScheduleMemo, so a new field is a new version here and nowhere else.
 *
 * Version 1: agent, tenant, when, createdBy.
 */
export interface AgentScheduleMemo {
  version: 1;
  agent: string;
  tenant?: string;
  when: ScheduleWhen;
  /** `person`, or the workflow id of the run whose model asked for the schedule. */
  createdBy: { person: true } | { run: string };
}

/** The schedule memo field that marks a schedule as an agent's (other schedules of the namespace are left alone). */
export const scheduleMemoField = 'durableAgentSchedule';

/** The run memo field that names the schedule which started the run (beside Temporal's TemporalScheduledById). */
export const scheduledByMemoField = 'agentSchedule';

/** The agent schedule memo of a schedule's memo, of any version written so far; undefined for other schedules. */
export function readScheduleMemo(memo: Record<string, unknown> | undefined): AgentScheduleMemo | undefined {
  const value = memo?.[scheduleMemoField] as Partial<AgentScheduleMemo> | undefined;
  if (!value || typeof value !== 'object' || value.version !== 1 || typeof value.agent !== 'string') return undefined;
  if (!value.when || typeof value.when !== 'object' || !value.createdBy) return undefined;
  return value as AgentScheduleMemo;
}
