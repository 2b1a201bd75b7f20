import { Context } from '@temporalio/activity';

// Heartbeats let Temporal notice a dead worker within the heartbeat timeout instead of the call's full timeout,
// and carry cancellation back to the activity.
const heartbeatIntervalMs = 1_000;

/**
 * Runs an activity's work while heartbeating every second, with `details()` as
 * the heartbeat details (a retried attempt reads the last ones). Once Temporal
 * has cancelled the attempt, whatever the work threw (an SDK's abort error, say)
 * is replaced by the CancelledFailure, so the attempt is recorded as cancelled, not failed.
 */
export async function heartbeating<T>(
  work: (context: Context) => Promise<T>,
  details: () => unknown = () => undefined,
): Promise<T> {
  const context = Context.current();
  // A local activity has no heartbeats: the workflow task that runs it stands for it.
  const timer = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(details()), heartbeatIntervalMs);
  try {
    return await work(context);
  } catch (error) {
    throw context.cancellationSignal.aborted ? (context.cancellationSignal.reason ?? error) : error;
  } finally {
    clearInterval(timer);
  }
}
