import type { Context } from '@temporalio/activity';
import { ApplicationFailure, type RetryPolicy } from '@temporalio/common';
import { modelCallRetryPolicy } from '../../core/model-retry-policy';
import { msOptionalToNumber, msToNumber } from '@temporalio/common/lib/time';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { agentStreamTopic, type AgentEvent } from '../../core/stream-events';
import type { ModelProvider } from '../../providers/provider-call';

/**
 * Where a provider's calls go, fit for history and a terminal: the host and port of its endpoint, nothing else (a
 * base URL's path, query and userinfo may carry a key). Undefined when the provider does not say or the URL is bad.
 */
export function endpointHost(provider: ModelProvider | undefined, env: NodeJS.ProcessEnv): string | undefined {
  let endpoint: string | undefined;
  try {
    endpoint = provider?.endpoint?.(env);
    return endpoint ? new URL(endpoint).host || undefined : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The wait before the next attempt, in milliseconds, as the server will compute it: the failure's own delay
 * (Retry-After), else the activity's retry policy for this attempt (`assumed` when the info has none: an eagerly
 * started attempt, or an older server). Undefined when no attempt follows (the failure is not retryable, or the
 * policy's attempts are spent) or no policy is known.
 */
export function nextRetryDelayMs(failure: ApplicationFailure, info: Context['info'], assumed?: RetryPolicy): number | undefined {
  const policy = info.retryPolicy ?? assumed;
  if (failure.nonRetryable || !policy) return undefined;
  if (failure.type && policy.nonRetryableErrorTypes?.includes(failure.type)) return undefined;
  if (policy.maximumAttempts && info.attempt >= policy.maximumAttempts) return undefined;
  const ownDelay = msOptionalToNumber(failure.nextRetryDelay ?? undefined);
  if (ownDelay !== undefined) return ownDelay;
  const initial = msOptionalToNumber(policy.initialInterval) ?? 1_000;
  const maximum = policy.maximumInterval !== undefined ? msToNumber(policy.maximumInterval) : initial * 100;
  return Math.min(initial * (policy.backoffCoefficient ?? 2) ** (info.attempt - 1), maximum);
}

/** How long a notice may take to reach the workflow before the failure goes on without it. */
const publishDeadline = '10 seconds';

/**
 * Tells the run's stream, as it happens, that this attempt of a model call failed and another follows: the attempt,
 * the provider's host and its error (core/stream-events.ts, `model_retry`). Without it a run whose endpoint cannot be
 * reached waited in silence through every backoff (four minutes over ten attempts). Best effort, like the text: a
 * stream that cannot be reached never changes the failure, which is thrown after this either way.
 */
export async function announceRetry(
  context: Context,
  failure: ApplicationFailure,
  call: { model: string; host: string; error: string; streamAs?: string },
): Promise<void> {
  const retryInMs = nextRetryDelayMs(failure, context.info, modelCallRetryPolicy);
  if (retryInMs === undefined) return;
  const event: AgentEvent = {
    type: 'model_retry',
    ...(call.streamAs !== undefined && { call: call.streamAs }),
    model: call.model,
    attempt: context.info.attempt,
    host: call.host,
    error: call.error,
    retryInMs,
  };
  context.log.warn(`model call failed (attempt ${event.attempt}, ${event.host}: ${event.error}); retrying in ${retryInMs} ms`);
  try {
    const client = WorkflowStreamClient.fromWithinActivity({ maxRetryDuration: publishDeadline });
    client.topic<AgentEvent>(agentStreamTopic).publish(event, { forceFlush: true });
    await client[Symbol.asyncDispose]();
  } catch (error) {
    context.log.warn(`could not tell the run's stream of the retry: ${(error as Error).message}`);
  }
}
