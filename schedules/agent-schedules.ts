import { randomBytes } from 'node:crypto';
import {
  ScheduleAlreadyRunning,
  type Client,
  type ScheduleDescription,
  type ScheduleHandle,
  type ScheduleOverlapPolicy,
  type ScheduleSummary,
} from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { agentStartOptions, InvalidInputError } from '../client/start-agent';
import type { RunTenancy } from '../client/run-tenancy';
import type { AgentInput } from '../core/resolve-input';
import { agentWorkflowType } from '../workflows/definitions';
import { defaultScheduleBounds, type ScheduleBounds } from './bounds';
import { readScheduleMemo, scheduledByMemoField, scheduleMemoField, type AgentScheduleMemo } from './schedule-memo';
import { checkingNote, claimSlot, spent } from './slot-claims';
import { describeWhen, scheduleSpecOf, whenProblem, type ScheduleWhen } from './when';

/** A schedule was refused by a bound (docs/schedules.md, "Bounds"): nothing was created. */
export class ScheduleBoundError extends InvalidInputError {}

/** How a missed firing is handled when the server was down at its time: taken if the server is back within this. */
export const defaultCatchupWindow: Duration = '10 minutes';

export interface AgentScheduleOptions extends RunTenancy {
  /** The schedule's id (default: `schedule-<time>-<random>`). Each run it starts is `<id>-<time of the firing>`. */
  scheduleId?: string;
  when: ScheduleWhen;
  /** The run each firing starts, as startAgent takes it: the prompt, the agent, its workspace and settings. */
  input: AgentInput;
  taskQueue: string;
  /** What a firing does while the schedule's last run is still going (default SKIP: it is not started). */
  overlap?: ScheduleOverlapPolicy;
  /** How late a missed firing may still be taken, after the server was down at its time (default 10 minutes). */
  catchupWindow?: Duration;
  /** Live schedules an agent and a tenant may have (default 10 and 100). */
  bounds?: ScheduleBounds;
  /** More memo fields for each run the schedule starts (a web session's owner). */
  memo?: Record<string, unknown>;
  /** The run whose model asked for the schedule (schedule_run); a person's schedule has none. */
  createdByRun?: string;
  /**
   * The tenant's slot ids (schedule_run's), instead of one id: a free one is taken, and the bounds are held even when
   * many calls create at once (./slot-claims.ts); none free is refused as over the bound. A spent one-off frees its id.
   */
  slotIds?: string[];
  /** When `when` is checked against (default: now). */
  now?: Date;
}

/** An agent schedule as `agent schedule list|describe --json` prints it. */
export interface AgentScheduleView {
  scheduleId: string;
  agent: string;
  tenant?: string;
  /** When it fires, in absolute terms (describeWhen). */
  when: string;
  paused: boolean;
  note?: string;
  /** `person`, or the workflow id of the run whose model asked for it. */
  createdBy: string;
  /** The next firings (ISO 8601, UTC). */
  nextRuns: string[];
  /** The runs it started, oldest first: each is an ordinary run (`agent show <workflowId>`). */
  recentRuns: Array<{ workflowId: string; runId: string; scheduledAt: string; startedAt: string }>;
  /** Only in describe: the prompt each run gets. */
  prompt?: string;
  /** Only in describe: firings skipped because a run was still going, and taken in all. */
  skipped?: number;
  taken?: number;
}

/**
 * Creates a Temporal schedule whose action starts the agent workflow with `input`, exactly as `agent run` starts it
 * (client/start-agent.ts's agentStartOptions): so each firing is an ordinary run, readable with `agent show`, whose
 * memo and summary name the schedule. The agent's and tenant's live schedules are counted first (the bounds).
 */
export async function createAgentSchedule(client: Client, options: AgentScheduleOptions): Promise<ScheduleHandle> {
  const problem = whenProblem(options.when, options.now ?? new Date());
  if (problem) throw new InvalidInputError(`invalid schedule: ${problem}`);
  const bounds = options.bounds ?? defaultScheduleBounds;
  const agent = agentStartOptions(options.input, options).resolved.agent;
  if (options.slotIds) {
    // The bounds are held by the slots and the describes after the create (./slot-claims.ts); the list, which may lag,
    // only counts the people's schedules and says which slots to try first.
    const slots = new Set(options.slotIds);
    const listed = await liveListed(client, options.tenant);
    const unslotted = listed.filter((schedule) => !slots.has(schedule.scheduleId));
    const handle = await claimSlot({
      client,
      agent,
      tenant: options.tenant,
      bounds,
      slotIds: options.slotIds,
      unslotted: { ofAgent: unslotted.filter((schedule) => schedule.agent === agent).length, ofTenant: unslotted.length },
      listedTaken: new Set(listed.map((schedule) => schedule.scheduleId).filter((id) => slots.has(id))),
      // Paused until its bounds are checked: one over a bound never fires.
      create: (scheduleId) => createOnce(client, scheduleId, agent, options, checkingNote),
      boundError: ScheduleBoundError,
    });
    await fireIfMissedWhilePaused(handle, options.when);
    return handle;
  }
  await assertWithinBounds(client, agent, options.tenant, bounds);
  const scheduleId = options.scheduleId ?? newScheduleId();
  return createOnce(client, scheduleId, agent, options).catch((error: unknown) => {
    if (error instanceof ScheduleAlreadyRunning) throw new InvalidInputError(`a schedule named "${scheduleId}" exists already`);
    throw error;
  });
}

/** Made paused with `pausedNote` (a slot's schedule while its bounds are checked), or running. */
async function createOnce(client: Client, scheduleId: string, agent: string, options: AgentScheduleOptions, pausedNote?: string) {
  const memo: AgentScheduleMemo = {
    version: 1,
    agent,
    ...(options.tenant !== undefined && { tenant: options.tenant }),
    when: options.when,
    createdBy: options.createdByRun ? { run: options.createdByRun } : { person: true },
  };
  const prompt = options.input.prompt ?? '';
  const { resolved, start } = agentStartOptions(options.input, {
    ...options,
    staticSummary: `schedule ${scheduleId}: ${prompt}`,
    memo: { ...options.memo, [scheduledByMemoField]: scheduleId },
  });
  return client.schedule.create({
    scheduleId,
    spec: scheduleSpecOf(options.when),
    action: {
      type: 'startWorkflow',
      workflowType: agentWorkflowType,
      // The server adds the firing's time to this id, so each run has its own.
      workflowId: scheduleId,
      taskQueue: options.taskQueue,
      args: [resolved],
      staticSummary: start.staticSummary,
      staticDetails: `**schedule** \`${scheduleId}\` (${describeWhen(options.when)})\n\n${start.staticDetails}`,
      ...(start.memo && { memo: start.memo }),
      // The tenant's fairness key and the priority, as startAgent gives them (the SDK's types leave priority out of a
      // schedule's options, but it sends it: schedule-helpers.js).
      ...(start.priority && ({ priority: start.priority } as object)),
    },
    policies: { overlap: options.overlap ?? 'SKIP', catchupWindow: options.catchupWindow ?? defaultCatchupWindow },
    // A one-off takes one action; a trigger still runs it again when asked.
    state: {
      ...('at' in options.when && { remainingActions: 1 }),
      ...(pausedNote !== undefined && { paused: true, note: pausedNote }),
    },
    memo: { [scheduleMemoField]: memo },
  });
}

/**
 * A one-off whose moment came while its schedule was paused for its bounds check (a time a second or two ahead) was
 * skipped: it is fired now, once, rather than never. The overlap policy (skip) still keeps it to one run at a time.
 */
async function fireIfMissedWhilePaused(handle: ScheduleHandle, when: ScheduleWhen): Promise<void> {
  if (!('at' in when) || Date.parse(when.at) > Date.now()) return;
  const description = await handle.describe();
  if (description.info.numActionsTaken === 0 && description.info.recentActions.length === 0) await handle.trigger();
}

/** The live agent schedules of `tenant` the list shows (it may lag a create or a firing by a moment). */
async function liveListed(client: Client, tenant: string | undefined): Promise<Array<{ scheduleId: string; agent: string }>> {
  const live: Array<{ scheduleId: string; agent: string }> = [];
  for await (const summary of client.schedule.list()) {
    const memo = readScheduleMemo(summary.memo);
    if (memo && memo.tenant === tenant && !spent(summary)) live.push({ scheduleId: summary.scheduleId, agent: memo.agent });
  }
  return live;
}

/** Refuses a person's new schedule of `agent` for `tenant` when either already has its most live schedules. */
async function assertWithinBounds(client: Client, agent: string, tenant: string | undefined, bounds: ScheduleBounds) {
  const listed = await liveListed(client, tenant);
  const ofTenant = listed.length;
  const ofAgent = listed.filter((schedule) => schedule.agent === agent).length;
  const whose = tenant === undefined ? 'without a tenant' : `of tenant "${tenant}"`;
  if (ofAgent >= bounds.perAgent)
    throw new ScheduleBoundError(
      `agent "${agent}" has ${ofAgent} live schedules ${whose}, its most (AGENT_MAX_SCHEDULES_PER_AGENT=${bounds.perAgent}); delete one first (agent schedule list)`,
    );
  if (ofTenant >= bounds.perTenant)
    throw new ScheduleBoundError(
      `there are ${ofTenant} live schedules ${whose}, the most (AGENT_MAX_SCHEDULES_PER_TENANT=${bounds.perTenant}); delete one first (agent schedule list)`,
    );
}

export function newScheduleId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `schedule-${stamp}-${randomBytes(3).toString('hex')}`;
}

/** The agent schedules of the namespace (other schedules left out), as listings show them. */
export async function listAgentSchedules(client: Client): Promise<AgentScheduleView[]> {
  const views: AgentScheduleView[] = [];
  for await (const summary of client.schedule.list()) {
    const memo = readScheduleMemo(summary.memo);
    if (memo) views.push(viewOf(summary.scheduleId, memo, summary));
  }
  return views.sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
}

/** One agent schedule, with its prompt and counts; an InvalidInputError when there is none of that id. */
export async function describeAgentSchedule(client: Client, scheduleId: string): Promise<AgentScheduleView> {
  const description = await agentScheduleDescription(client, scheduleId);
  const memo = readScheduleMemo(description.memo)!;
  const args = description.action.args as Array<{ prompt?: string }> | undefined;
  return {
    ...viewOf(scheduleId, memo, description),
    ...(args?.[0]?.prompt !== undefined && { prompt: args[0].prompt }),
    skipped: description.info.numActionsSkippedOverlap,
    taken: description.info.numActionsTaken,
  };
}

/** The description of an agent schedule; refused for a missing schedule or one that is not an agent's. */
export async function agentScheduleDescription(client: Client, scheduleId: string): Promise<ScheduleDescription> {
  const description = await client.schedule
    .getHandle(scheduleId)
    .describe()
    .catch((error: Error) => {
      if (error.name === 'ScheduleNotFoundError') throw new InvalidInputError(`no schedule named "${scheduleId}"`);
      throw error;
    });
  if (!readScheduleMemo(description.memo)) throw new InvalidInputError(`schedule "${scheduleId}" is not an agent schedule`);
  return description;
}

function viewOf(
  scheduleId: string,
  memo: AgentScheduleMemo,
  schedule: Pick<ScheduleSummary, 'state' | 'info'>,
): AgentScheduleView {
  return {
    scheduleId,
    agent: memo.agent,
    ...(memo.tenant !== undefined && { tenant: memo.tenant }),
    when: describeWhen(memo.when),
    paused: schedule.state.paused,
    ...(schedule.state.note && { note: schedule.state.note }),
    createdBy: 'run' in memo.createdBy ? memo.createdBy.run : 'person',
    nextRuns: schedule.info.nextActionTimes.map((time) => time.toISOString()),
    recentRuns: schedule.info.recentActions.map((action) => ({
      workflowId: action.action.workflow.workflowId,
      runId: action.action.workflow.firstExecutionRunId,
      scheduledAt: action.scheduledAt.toISOString(),
      startedAt: action.takenAt.toISOString(),
    })),
  };
}
