import { condition, defineSignal, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';
import type { FloorSessionActivities } from './session-activities';

/** A message to the floor session; its reply is the update's result. */
export const floorMessageUpdate = defineUpdate<string, [string]>('message');
export const floorEndSignal = defineSignal('end');

// The SDK's defaults but a timeout: no heartbeats, no retry settings, nothing the agent adds.
const { callModel } = proxyActivities<FloorSessionActivities>({ startToCloseTimeout: '1 minute' });

/**
 * Temporal's floor for a chat session: each message is an update whose handler
 * calls one activity (the model) and returns its answer; nothing else. A message
 * is then two workflow tasks and one activity, as an agent session's is, without
 * any of the agent's code (inbox, turn, stream, status, cost), so the sessions
 * benchmark can say which part of a message's cost is Temporal's.
 */
export async function floorSession(): Promise<void> {
  let ended = false;
  setHandler(floorEndSignal, () => {
    ended = true;
  });
  setHandler(floorMessageUpdate, (text) => callModel(text));
  await condition(() => ended);
}
