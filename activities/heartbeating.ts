import { Context } from '@temporalio/activity';

/**
 * How often a running activity heartbeats, and the worker's heartbeat throttle (worker/create-worker.ts): Core sends
 * at most one heartbeat per throttle interval, but the first at once. Ticking every second therefore cost every call
 * that outlived one second a heartbeat (an RPC, and a write of the activity's state on the server) that ticking at the
 * throttle interval spares every call shorter than it: 1.2 ms of the dev server's CPU per chat message in the sessions
 * benchmark (bench/NOTES.md). Cancellation arrives in a heartbeat's response, so within this interval either way.
 */
export const heartbeatIntervalMs = 2_000;

/**
 * Runs an activity's work while heartbeating every `heartbeatIntervalMs`, with `details()` as the heartbeat details
 * (a retried attempt reads the last ones). Heartbeats let Temporal notice a dead worker within the heartbeat timeout
 * instead of the call's full timeout, and carry cancellation back to the activity. An attempt with details that fails
 * heartbeats them once more: Core sends an activity's last details before its failure, so the next attempt reads what
 * this one learnt (the model activity's spend) without a heartbeat on every call that succeeds. Once Temporal has
 * cancelled the attempt, whatever the work threw (an SDK's abort error, say) is replaced by the CancelledFailure, so
 * the attempt is recorded as cancelled, not failed.
 */
export async function heartbeating<T>(work: (context: Context) => Promise<T>, details?: () => unknown): Promise<T> {
  const context = Context.current();
  // A local activity has no heartbeats: the workflow task that runs it stands for it.
  const timer = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(details?.()), heartbeatIntervalMs);
  try {
    return await work(context);
  } catch (error) {
    if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason ?? error;
    // Without details (none given, or none yet: a tool that records nothing) there is nothing for the next attempt to
    // read, and no reason for another heartbeat.
    const last = details && !context.info.isLocal ? details() : undefined;
    if (last !== undefined) context.heartbeat(last);
    throw error;
  } finally {
    clearInterval(timer);
  }
}
