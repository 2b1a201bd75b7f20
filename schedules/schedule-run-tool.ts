import { Context } from '@temporalio/activity';
import { z } from 'zod';
import type { RunTenancy } from '../client/run-tenancy';
import type { ApprovalText } from '../core/approval-description';
import { AgentError, ToolInputError } from '../core/errors';
import { maxPromptChars } from '../core/limits';
import type { AgentInput } from '../core/resolve-input';
import { ownerMemoField } from '../serve/http/run-owner';
import { defineTool, type Tool } from '../tools';
import { settingsQuery } from '../workflows/definitions';
import { createAgentSchedule } from './agent-schedules';
import { boundsForAgent, scheduleBoundsFromEnv, type ScheduleBounds } from './bounds';
import { describeModelWhen, describeWhen, firstFiring, modelWhenProblem, whenProblem, type ScheduleWhen } from './when';

export const scheduleRunToolName = 'schedule_run';

const input = z.object({
  prompt: z
    .string()
    .trim()
    .min(1)
    .max(maxPromptChars)
    .describe('The task for the scheduled run, with everything it needs to know: it starts with no conversation'),
  at: z
    .string()
    .optional()
    .describe('Run once at this time: ISO 8601 with its offset, like 2026-12-03T09:00:00Z. Give at or cron, not both'),
  cron: z
    .string()
    .optional()
    .describe('Or run whenever this cron expression matches: 5 fields, minute hour day-of-month month day-of-week'),
  timezone: z.string().optional().describe('The IANA time zone the cron is read in (default UTC), like Europe/Paris'),
  agent: z.string().optional().describe('The registered agent to run (default: this agent)'),
});
type ScheduleRunInput = z.output<typeof input>;

/** The call's `when`, or what is wrong with it (for the model). */
function whenOf({ at, cron, timezone }: ScheduleRunInput): ScheduleWhen | string {
  if ((at === undefined) === (cron === undefined)) return 'give exactly one of at (a one-off) and cron (a recurring run)';
  if (at !== undefined) return timezone !== undefined ? 'timezone goes with cron; give at with its own offset' : { at };
  return { cron: cron!, ...(timezone !== undefined && { timezone }) };
}

/** What a person approving a call reads: whom it runs, when in absolute terms (date, time and zone), and the prompt. */
function describeScheduleRun(call: ScheduleRunInput): ApprovalText {
  const when = whenOf(call);
  const whom = call.agent === undefined ? 'this agent' : `agent ${JSON.stringify(call.agent)}`;
  // Worked out when the model asks (the model activity): the first firing then, with its date and zone.
  const shown = typeof when === 'string' ? `(refused: ${when})` : describeModelWhen(when, new Date());
  return { headline: `schedule_run ${whom} ${shown}`, preview: call.prompt };
}

export interface ScheduleRunToolOptions {
  /** Whether the worker has this agent (the worker's registry); without it any name is taken, and fails when it fires. */
  knowsAgent?: (name: string) => boolean;
  /** Default: AGENT_MAX_SCHEDULES_PER_AGENT and AGENT_MAX_SCHEDULES_PER_TENANT of the worker's environment. */
  bounds?: ScheduleBounds;
  /** An agent's own bound on its schedules (defineAgent's `time.maxSchedules`), which tightens `bounds.perAgent`. */
  agentMaxSchedules?: (name: string) => number | undefined;
}

/**
 * `schedule_run`: the model schedules a later run, once or on a cron, of its own agent or another registered one,
 * with a prompt, through a Temporal Schedule (docs/schedules.md). Every call is approved by a person first, who reads
 * the time in absolute terms. The run it schedules inherits what bounds the calling run: its workspace, its approval
 * rules, its cost budget, its tenant (fairness key) and priority, its owner; its tools and model when it is the same
 * agent. The schedule counts against the bounds, and takes one of the tenant's slot ids, so that a reply of a thousand
 * calls made at once, or two runs creating at the same moment, still make at most the bounds.
 */
export function createScheduleRunTool(options: ScheduleRunToolOptions = {}): Tool<ScheduleRunInput> {
  return defineTool({
    name: scheduleRunToolName,
    description:
      'Schedule a later run of an agent (this one by default) with a prompt: once at a time (at), or on a cron. A person approves each schedule first. Runs fire at most once a minute, one at a time.',
    input,
    needsApproval: true,
    describeForApproval: describeScheduleRun,
    activity: { timeout: '30s' },
    async handler(call, { workspace }) {
      const when = whenOf(call);
      if (typeof when === 'string') throw new ToolInputError(when);
      const now = new Date();
      const problem = modelWhenProblem(when) ?? whenProblem(when, now);
      if (problem) throw new ToolInputError(problem);
      if (!firstFiring(when, now)) throw new ToolInputError(`${describeWhen(when)} matches no time in the next nine years`);
      const { client, info } = Context.current();
      const caller = info.workflowExecution?.workflowId;
      if (!caller) throw new ToolInputError('schedule_run runs only as a tool of an agent run');
      const handle = client.workflow.getHandle(caller);
      const [settings, description] = await Promise.all([handle.query(settingsQuery), handle.describe()]);
      const agent = call.agent ?? settings.agent;
      if (options.knowsAgent && !options.knowsAgent(agent)) throw new ToolInputError(`no agent named "${agent}" is registered`);
      const same = agent === settings.input.agent && agent === settings.agent;
      const runInput: AgentInput = {
        prompt: call.prompt,
        agent,
        workspace,
        ...(same && settings.input.model !== undefined && { model: settings.input.model }),
        ...(same && settings.input.tools !== undefined && { tools: settings.input.tools }),
        ...(settings.input.approval && { approval: settings.input.approval }),
        ...(settings.input.maxCostUsd !== undefined && { maxCostUsd: settings.input.maxCostUsd }),
      };
      // The caller's tenant and priority as it was started with them (its activities may not all carry them).
      const priority = description.priority ?? info.priority;
      const tenancy: RunTenancy = {
        ...(priority?.fairnessKey && { tenant: priority.fairnessKey }),
        ...(priority?.fairnessKey && priority.fairnessWeight && { tenantWeight: priority.fairnessWeight }),
        ...(priority?.priorityKey && { priority: priority.priorityKey }),
      };
      const owner = description.memo?.[ownerMemoField];
      const bounds = boundsForAgent(options.bounds ?? scheduleBoundsFromEnv(process.env), options.agentMaxSchedules?.(agent));
      // The tenant's slots: at most perTenant schedules made by runs can exist (./slot-claims.ts).
      const slotPrefix = `agent-schedule-${tenancy.tenant ?? 'no-tenant'}`;
      try {
        const schedule = await createAgentSchedule(client, {
          when,
          input: runInput,
          taskQueue: info.taskQueue,
          ...tenancy,
          bounds,
          createdByRun: caller,
          slotIds: Array.from({ length: bounds.perTenant }, (_, index) => `${slotPrefix}-${index + 1}`),
          ...(owner !== undefined && { memo: { [ownerMemoField]: owner } }),
        });
        return `scheduled ${schedule.scheduleId}: agent ${agent}, ${describeModelWhen(when, new Date())}; each run is an ordinary run named ${schedule.scheduleId}-<time>`;
      } catch (error) {
        // Refusals (a bound, an input the run would not take) go back to the model; the server's trouble is retried.
        if (error instanceof AgentError) throw new ToolInputError(error.message);
        throw error;
      }
    },
  });
}

/** The tool as an agent lists it (`tools: [scheduleRunTool]`); the worker runs it with its registry's agents. */
export const scheduleRunTool = createScheduleRunTool();
