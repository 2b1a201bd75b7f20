import { setTimeout as delay } from 'node:timers/promises';
import { ScheduleAlreadyRunning, type Client, type ScheduleDescription, type ScheduleHandle } from '@temporalio/client';
import { InvalidInputError } from '../client/start-agent';
import type { ScheduleBounds } from './bounds';
import { readScheduleMemo } from './schedule-memo';

/**
 * How `schedule_run` keeps the per-agent and per-tenant bounds when many calls create at once (docs/schedules.md,
 * "Bounds"). The schedule list is Temporal's visibility store, which lags a create, so two runs counting it at the same
 * moment could each see room for one more. Instead each tenant has a fixed set of ids, its slots
 * (`agent-schedule-<tenant>-1` … `-<perTenant>`): the server makes each id once, so no more than that many exist, and a
 * describe of each, unlike the list, sees every schedule created before it. After its create, a call describes every
 * slot and keeps its schedule only if the others, with the people's schedules the list shows, leave room under both
 * bounds; otherwise it deletes its own and is refused. Of any two calls the one whose create ended last sees the other,
 * so both cannot stay over a bound. When only calls in higher slots are in the way, which are deleting themselves, it
 * looks again a few times before it gives up, so a burst of calls keeps the lowest rather than none.
 */

/** A refusal by a bound; agent-schedules.ts's ScheduleBoundError, passed in to keep one class. */
type BoundError = new (message: string) => InvalidInputError;

export interface SlotClaim {
  client: Client;
  agent: string;
  tenant: string | undefined;
  bounds: ScheduleBounds;
  /** The tenant's slots, lowest first. */
  slotIds: string[];
  /** Live schedules the list shows that are not in slots (people's): of this agent, and of the tenant. */
  unslotted: { ofAgent: number; ofTenant: number };
  /** Slots the list shows taken: tried after the others. */
  listedTaken: Set<string>;
  create(scheduleId: string): Promise<ScheduleHandle>;
  boundError: BoundError;
}

/** The note of a slot's schedule while its bounds are checked: it is made paused, and unpaused once within them. */
export const checkingNote = 'schedule_run: checking the bounds';
const keptNote = 'schedule_run: within the bounds';
/** A schedule still paused for its check this long after it was made was left so by a call that died: it counts. */
const checkAbandonedMs = 60_000;

/** Looks again this many times, a little longer each time, while only higher slots stand in the way. */
const recheckDelaysMs = [100, 200, 400, 800, 1_600, 3_200];

export async function claimSlot(claim: SlotClaim): Promise<ScheduleHandle> {
  const { slotIds, listedTaken } = claim;
  // The free slots from a random one on, so that calls at the same moment try different ids rather than queue on one.
  const free = slotIds.filter((id) => !listedTaken.has(id));
  const start = Math.floor(Math.random() * free.length);
  const order = [...free.slice(start), ...free.slice(0, start), ...slotIds.filter((id) => listedTaken.has(id))];
  for (const scheduleId of order) {
    const handle = await createInSlot(claim, scheduleId);
    if (!handle) continue;
    await keepWithinBounds(claim, handle);
    return handle;
  }
  throw new claim.boundError(
    `${whose(claim.tenant)} has ${slotIds.length} live schedules made by runs, its most (AGENT_MAX_SCHEDULES_PER_TENANT); delete one first (agent schedule list)`,
  );
}

/** The schedule made in this slot, or undefined when a live one holds it. A spent one-off gives its slot back. */
async function createInSlot(claim: SlotClaim, scheduleId: string): Promise<ScheduleHandle | undefined> {
  try {
    return await claim.create(scheduleId);
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const holder = await describe(claim.client, scheduleId);
  if (holder && !spent(holder)) return undefined;
  if (holder) await claim.client.schedule.getHandle(scheduleId).delete();
  try {
    return await claim.create(scheduleId);
  } catch (error) {
    // Another call took the slot it freed first.
    if (error instanceof ScheduleAlreadyRunning) return undefined;
    throw error;
  }
}

async function keepWithinBounds(claim: SlotClaim, handle: ScheduleHandle): Promise<void> {
  const mine = await describe(claim.client, handle.scheduleId);
  const myIndex = claim.slotIds.indexOf(handle.scheduleId);
  const madeAt = mine?.info.createdAt.getTime() ?? 0;
  for (let attempt = 0; ; attempt++) {
    const others = await liveInSlots(claim, handle.scheduleId);
    const ofAgent = others.filter((other) => other.agent === claim.agent);
    const agentRoom = ofAgent.length + claim.unslotted.ofAgent < claim.bounds.perAgent;
    const tenantRoom = others.length + claim.unslotted.ofTenant < claim.bounds.perTenant;
    if (agentRoom && tenantRoom) break;
    // Calls in higher slots still checking give way to this one (they see it below them); every other schedule stays.
    const staying = (list: LiveSlot[]) =>
      list.filter((other) => other.index < myIndex || !other.checking || other.createdAt < madeAt - checkAbandonedMs).length;
    const agentFull = staying(ofAgent) + claim.unslotted.ofAgent >= claim.bounds.perAgent;
    const tenantFull = staying(others) + claim.unslotted.ofTenant >= claim.bounds.perTenant;
    if (agentFull || tenantFull || attempt >= recheckDelaysMs.length) {
      await handle.delete();
      throw new claim.boundError(
        !agentRoom
          ? `agent "${claim.agent}" has ${ofAgent.length + claim.unslotted.ofAgent} live schedules ${whose(claim.tenant)}, its most (AGENT_MAX_SCHEDULES_PER_AGENT=${claim.bounds.perAgent}); delete one first (agent schedule list)`
          : `there are ${others.length + claim.unslotted.ofTenant} live schedules ${whose(claim.tenant)}, the most (AGENT_MAX_SCHEDULES_PER_TENANT=${claim.bounds.perTenant}); delete one first (agent schedule list)`,
      );
    }
    await delay(recheckDelaysMs[attempt]);
  }
  // A call that found this slot spent a moment before may have deleted it after this create: then it is not ours.
  const still = await describe(claim.client, handle.scheduleId);
  if (!still || still.info.createdAt.getTime() !== madeAt)
    throw new Error(`schedule ${handle.scheduleId} was replaced while it was being made; try again`);
  await handle.unpause(keptNote);
}

interface LiveSlot {
  index: number;
  agent: string;
  /** Paused for its own check: a call that may still give way. */
  checking: boolean;
  createdAt: number;
}

/** The live agent schedules in the tenant's other slots, read one by one (each describe sees every create before it). */
async function liveInSlots(claim: SlotClaim, exceptId: string): Promise<LiveSlot[]> {
  const live: LiveSlot[] = [];
  const ids = claim.slotIds.map((id, index) => ({ id, index })).filter(({ id }) => id !== exceptId);
  // A few at a time: a hundred slots are a hundred small calls, not a hundred at once.
  for (let start = 0; start < ids.length; start += 16) {
    const batch = ids.slice(start, start + 16);
    const described = await Promise.all(batch.map(({ id }) => describe(claim.client, id)));
    described.forEach((description, position) => {
      const memo = description && readScheduleMemo(description.memo);
      if (memo && memo.tenant === claim.tenant && !spent(description))
        live.push({
          index: batch[position].index,
          agent: memo.agent,
          checking: description.state.paused && description.state.note === checkingNote,
          createdAt: description.info.createdAt.getTime(),
        });
    });
  }
  return live;
}

async function describe(client: Client, scheduleId: string): Promise<ScheduleDescription | undefined> {
  try {
    return await client.schedule.getHandle(scheduleId).describe();
  } catch (error) {
    if ((error as Error).name === 'ScheduleNotFoundError') return undefined;
    throw error;
  }
}

/** A schedule that can fire no more: not paused, with no next time (a one-off that has fired). */
export function spent(schedule: { state: { paused: boolean }; info: { nextActionTimes: Date[] } }): boolean {
  return !schedule.state.paused && schedule.info.nextActionTimes.length === 0;
}

function whose(tenant: string | undefined): string {
  return tenant === undefined ? 'without a tenant' : `of tenant "${tenant}"`;
}
