import { createHash } from 'node:crypto';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Context } from '@temporalio/activity';
import { ConfigurationError, failureTypes } from '../../core/errors';
import { parseModelId } from '../../core/model-id';
import type { PricingOptions } from '../../core/cost';
import { BatchRequestLost, type BatchState, type SubmittedBatch } from '../../providers/batch-capability';
import type { ModelProvider, ProviderCall } from '../../providers/provider-call';
import type { TranscriptStore } from '../../storage/transcript/transcript-store';
import { heartbeating } from '../heartbeating';
import type { CallSetup, Respond } from './call-model';
import { classifyProviderError } from './classify-error';
import type { ModelCallInput, ModelCallResult } from './model-input';
import { conversationRequest, type ConversationRequest } from './with-transcript';

export type { BatchState, SubmittedBatch } from '../../providers/batch-capability';

/** The result read of a model call in batch mode: the call as the workflow made it, and the batch it was sent in. */
export interface ReadModelBatchInput extends ModelCallInput {
  batch: SubmittedBatch;
}

/** A status check: the batch, and the `provider:model` whose provider asks. */
export interface CheckModelBatchInput {
  model: string;
  batch: SubmittedBatch;
}

interface BatchActivityParts {
  /** The worker's environment, where providers read API keys. */
  env: NodeJS.ProcessEnv;
  transcripts: TranscriptStore;
  setupOf(input: ModelCallInput): CallSetup;
  providerCallOf(setup: CallSetup, input: ModelCallInput, request: ConversationRequest, context: Context): ProviderCall;
  answer(input: ModelCallInput, respond: Respond, pricing: PricingOptions): Promise<ModelCallResult>;
}

/**
 * The three short activities of a model call in batch mode (workflows/batch-model-call.ts): submit the request the
 * online call would make, check the batch's status (one request, no waiting: the workflow waits on a timer), and
 * read the answer once it has ended, which goes through the online call's own path (createModelActivities'
 * `answer`): conversation rebuilt, the provider's converter, unique call ids, the transcript stored, output and
 * approvals checked, and the tokens priced at the batch rate.
 */
export function createBatchActivities({ env, transcripts, setupOf, providerCallOf, answer }: BatchActivityParts) {
  async function submitModelBatch(input: ModelCallInput): Promise<SubmittedBatch> {
    return classified(input.model, () =>
      heartbeating(async (context) => {
        const setup = setupOf(input);
        const batch = batchOf(setup.provider);
        const { request } = await conversationRequest(transcripts, input);
        const { wantsOutput: _unused, ...call } = providerCallOf(setup, input, request, context) as ProviderCall & {
          wantsOutput?: boolean;
        };
        // A retried submission's first attempt may have created the batch and died before hearing so: look first.
        const { attempt, scheduledTimestampMs } = context.info;
        return batch.submit(call, customIdOf(context), attempt > 1 ? { since: scheduledTimestampMs } : undefined);
      }),
    );
  }

  async function checkModelBatch(input: CheckModelBatchInput): Promise<BatchState> {
    return classified(input.model, () =>
      heartbeating(async (context) => {
        const provider = setupOf({ model: input.model, transcript: { baseLength: 0, messages: [] }, tools: [] }).provider;
        return batchOf(provider).check(input.batch, {
          env,
          signal: context.cancellationSignal,
          timeoutMs: context.info.startToCloseTimeoutMs,
        });
      }),
    );
  }

  async function readModelBatch(input: ReadModelBatchInput): Promise<ModelCallResult> {
    const { batch: submitted, ...call } = input;
    return answer(
      call,
      (provider, providerCall) =>
        batchOf(provider)
          .result(submitted, providerCall)
          .catch((error: unknown) => {
            throw error instanceof BatchRequestLost ? lostFailure(error) : error;
          }),
      { batch: true },
    );
  }

  return { submitModelBatch, checkModelBatch, readModelBatch };
}

function batchOf(provider: ModelProvider) {
  if (!provider.batch)
    throw new ConfigurationError(`provider "${provider.name}" has no batch API: run its models without batch mode`);
  return provider.batch;
}

/**
 * The request's id within its batch, from the activity's workflow, run and activity ids: unique per model call and
 * within Anthropic's pattern (letters, digits, - and _, at most 64).
 */
function customIdOf(context: Context): string {
  const { workflowExecution, activityId } = context.info;
  const digest = createHash('sha256')
    .update(`${workflowExecution?.workflowId}/${workflowExecution?.runId}/${activityId}`)
    .digest('hex');
  return `call-${digest.slice(0, 40)}`;
}

function lostFailure(error: BatchRequestLost): ApplicationFailure {
  return ApplicationFailure.create({
    type: failureTypes.batchRequestLost,
    message: error.message,
    nonRetryable: true,
    details: [{ reason: error.reason }],
  });
}

async function classified<T>(model: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CancelledFailure) throw error;
    throw classifyProviderError(error, parseModelId(model).provider);
  }
}
