import { createHash } from 'node:crypto';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Context } from '@temporalio/activity';
import { ConfigurationError, failureTypes } from '../../core/errors';
import { parseModelId } from '../../core/model-id';
import type { PricingOptions } from '../../core/cost';
import {
  BatchRequestLost,
  type BatchSearch,
  type BatchState,
  type EarlierAttempts,
  type SubmitOutcome,
  type SubmittedBatch,
} from '../../providers/batch-capability';
import type { ModelProvider, ProviderCall } from '../../providers/provider-call';
import type { TranscriptStore } from '../../storage/transcript/transcript-store';
import { heartbeating } from '../heartbeating';
import type { CallSetup, Respond } from './call-model';
import { classifyProviderError } from './classify-error';
import type { ModelCallInput, ModelCallResult } from './model-input';
import { conversationRequest, type ConversationRequest } from './with-transcript';

export type { BatchSearch, BatchState, SubmitOutcome, SubmittedBatch } from '../../providers/batch-capability';

/**
 * A submission: the model call, and, from a workflow that can wait for a search (workflows/batch-model-call.ts),
 * `search`: `{}` on its first submission, else the search the last one handed back. Without it the submission
 * creates its batch (or finds it by metadata) and never answers with a search, as before searches existed.
 */
export interface SubmitModelBatchInput extends ModelCallInput {
  search?: BatchSearch | Record<string, never>;
}

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
  /** The call with its attachments' bytes (load-attachments.ts). */
  withBytes(call: ProviderCall, setup: CallSetup): Promise<ProviderCall>;
  answer(input: ModelCallInput, respond: Respond, pricing: PricingOptions): Promise<ModelCallResult>;
}

/**
 * The three short activities of a model call in batch mode (workflows/batch-model-call.ts): submit the request the
 * online call would make, check the batch's status (one request, no waiting: the workflow waits on a timer), and
 * read the answer once it has ended, which goes through the online call's own path (createModelActivities'
 * `answer`): conversation rebuilt, the provider's converter, unique call ids, the transcript stored, output and
 * approvals checked, and the tokens priced at the batch rate.
 */
export function createBatchActivities({ env, transcripts, setupOf, providerCallOf, withBytes, answer }: BatchActivityParts) {
  async function submitModelBatch({ search, ...input }: SubmitModelBatchInput): Promise<SubmitOutcome> {
    return classified(input.model, () =>
      heartbeating(async (context) => {
        const setup = setupOf(input);
        const batch = batchOf(setup.provider);
        const { request } = await conversationRequest(transcripts, input);
        const { wantsOutput: _unused, ...bare } = providerCallOf(setup, input, request, context) as ProviderCall & {
          wantsOutput?: boolean;
        };
        const call = await withBytes(bare, setup);
        // The custom id stays the one of the first submission while a search goes on: it is what the search looks for.
        const customId = search && 'customId' in search ? search.customId : customIdOf(context);
        return batch.submit(call, customId, earlierAttempts(context, search));
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

/**
 * What the provider is to look at before creating: nothing on the common path (a first attempt, no search going on),
 * so that it costs one create as always; a retried attempt's first attempt may have created the batch and died
 * before hearing so (`since`); a search's candidates are read again.
 */
function earlierAttempts(context: Context, search: SubmitModelBatchInput['search']): EarlierAttempts | undefined {
  const { attempt, scheduledTimestampMs } = context.info;
  const pending = search && 'pending' in search ? search.pending : [];
  if (attempt === 1 && pending.length === 0) return undefined;
  return {
    since: attempt > 1 ? scheduledTimestampMs : undefined,
    pending,
    rejected: search && 'rejected' in search ? search.rejected : [],
    canWait: search !== undefined,
  };
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
