import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { AgentError } from '../core/errors';
import { deliverEventUpdate, type EventDelivered } from './event-update';
import { eventNamePattern } from './names';

/** An event the run did not take: nothing there waits for it (the reason says what does), or the run is gone. */
export class EventRefusedError extends AgentError {}

export interface SendEventOptions {
  /**
   * The event's own id (a webhook's delivery id): sent again with the same id, the run answers with the first
   * delivery's outcome instead of delivering it twice (Temporal's update id, within the run that took it).
   */
  id?: string;
}

/**
 * Sends an event to a run whose `wait_for_event` call waits for it by name: the payload (any JSON) becomes that call's
 * result. Resolves to the call that took it; rejects with EventRefusedError, and the run's reason, when nothing in the
 * run waits for that name (docs/time.md).
 *
 *   await sendEvent(client.workflow.getHandle(workflowId), 'payment.received', { amount: 42 });
 */
export async function sendEvent(
  handle: WorkflowHandle,
  name: string,
  payload?: unknown,
  options: SendEventOptions = {},
): Promise<EventDelivered> {
  if (!eventNamePattern.test(name))
    throw new EventRefusedError(`event name "${name}" must be letters, digits and . _ : - (at most 100)`);
  try {
    return await handle.executeUpdate(deliverEventUpdate, {
      args: [{ name, ...(payload !== undefined && { payload }) }],
      ...(options.id !== undefined && { updateId: `event:${options.id}` }),
    });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError)
      throw new EventRefusedError(`${handle.workflowId}: ${error.cause?.message ?? error.message}`);
    throw error;
  }
}
