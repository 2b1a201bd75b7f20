import { ActivityFailure, ApplicationFailure, patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { CoreActivities, ModelCallInput, ModelCallResult } from '../activities';
import type { BatchState, SubmitOutcome, SubmittedBatch } from '../activities/model/batch-activities';
import { defaultBatchSettings, type BatchSettings } from '../core/batch-settings';
import type { AgentSpec } from '../core/agent-spec';
import { failureTypes } from '../core/errors';
import type { ResolvedAgentInput } from '../core/input';

/**
 * The batch settings of a model call, or undefined when it is made online: the run's own (`--batch`), else the
 * agent's `batch: true` with the default settings, for a run that is not a session (someone waits on a session).
 */
export function batchSettingsOf(input: ResolvedAgentInput, agent: AgentSpec): BatchSettings | undefined {
  if (input.batch) return input.batch;
  return agent.batch && !input.session ? defaultBatchSettings : undefined;
}

// Each step is one short request: a dead worker is noticed within the heartbeat timeout, and Temporal retries it.
/**
 * Runs recorded before this patch submitted once and took what came back as the batch; with it, the submission may
 * hand back a search (an earlier attempt's batch may be among candidates still processing: Anthropic), which the
 * workflow waits out on timers, submitting again with it after each, until it names the batch.
 */
export const batchSearchPatch = 'batch-submit-waits-for-search';

const batchActivityOptions = {
  startToCloseTimeout: '2m',
  heartbeatTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 10 },
} as const;

/**
 * A model call through the provider's batch API, shaped like the model activity (the same input, the same result)
 * so that callModel's transcript and MCP fallbacks wrap it unchanged: submit the request, wait on a durable timer,
 * check the batch's status (one short activity), wait twice as long, and so on up to the settings' longest wait;
 * then read the answer. No activity is open while the batch waits, so a worker may stop and another take over. A
 * request the batch lost (expired, cancelled, a server error) is submitted again, `maxSubmissions` times in all; a
 * batch the provider failed as a whole ends the run, since the same request would fail again.
 */
export function batchModelCall(settings: BatchSettings, label: string): (input: ModelCallInput) => Promise<ModelCallResult> {
  const activities = (summary: string) => proxyActivities<CoreActivities>({ ...batchActivityOptions, summary });
  const { submitModelBatch } = activities(`${label} (batch submit)`);
  const { checkModelBatch } = activities(`${label} (batch status)`);
  const { readModelBatch } = activities(`${label} (batch result)`);
  // Until a submission names the batch: one activity on the common path; timers and resubmissions while it searches.
  const submit = async (input: ModelCallInput): Promise<SubmittedBatch> => {
    if (!patched(batchSearchPatch)) return (await submitModelBatch(input)) as SubmittedBatch;
    let outcome = await submitModelBatch({ ...input, search: {} });
    if (!isSearching(outcome)) return outcome;
    // Each later submission carries the search the last one handed back: its candidates and our custom id.
    const resubmit = async () => (outcome = await submitModelBatch({ ...input, search: (outcome as Searching).search }));
    return pollUntil(settings, (delay) => sleep(delay), resubmit, isSubmitted);
  };
  return async (input) => {
    for (let submission = 1; ; submission++) {
      const batch = await submit(input);
      const state = await waitForEnd(
        settings,
        (delay) => sleep(delay),
        () => checkModelBatch({ model: input.model, batch }),
      );
      if (state.status === 'failed') {
        throw ApplicationFailure.create({
          type: failureTypes.batchFailed,
          message: `the provider failed batch ${batch.id}: ${state.detail}`,
          nonRetryable: true,
        });
      }
      try {
        return await readModelBatch({ ...input, batch });
      } catch (error) {
        if (!isLost(error)) throw error;
        if (submission >= settings.maxSubmissions) throw lostTooOften(batch, submission, error);
      }
    }
  };
}

/** Waits until a batch is no longer pending: a timer, one status check, a timer twice as long, up to the longest wait. */
export async function waitForEnd(
  settings: BatchSettings,
  wait: (milliseconds: number) => Promise<void>,
  check: () => Promise<BatchState>,
): Promise<Exclude<BatchState, { status: 'pending' }>> {
  return pollUntil(settings, wait, check, (state) => state.status !== 'pending');
}

/** A timer, one step, a timer twice as long, and so on up to the settings' longest wait, until a step is done. */
async function pollUntil<T, Done extends T>(
  settings: BatchSettings,
  wait: (milliseconds: number) => Promise<void>,
  step: () => Promise<T>,
  done: (value: T) => value is Done,
): Promise<Done> {
  let delaySeconds = settings.firstCheckSeconds;
  for (;;) {
    await wait(Math.round(delaySeconds * 1000));
    const value = await step();
    if (done(value)) return value;
    delaySeconds = Math.min(delaySeconds * 2, settings.maxCheckIntervalSeconds);
  }
}

type Searching = Extract<SubmitOutcome, { search: unknown }>;

function isSearching(outcome: SubmitOutcome): outcome is Searching {
  return 'search' in outcome;
}

function isSubmitted(outcome: SubmitOutcome): outcome is SubmittedBatch {
  return !isSearching(outcome);
}

function isLost(error: unknown): error is ActivityFailure {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === failureTypes.batchRequestLost
  );
}

function lostTooOften(batch: SubmittedBatch, submissions: number, error: ActivityFailure): ApplicationFailure {
  return ApplicationFailure.create({
    type: failureTypes.batchFailed,
    message: `the model call was sent in ${submissions} batch(es) and none answered it (the last, ${batch.id}: ${error.cause?.message ?? error.message}); the run ends here`,
    nonRetryable: true,
    cause: error,
  });
}
