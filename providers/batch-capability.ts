import { AgentError } from '../core/errors';
import type { ModelResponse } from '../core/messages';
import type { ProviderCall } from './provider-call';

/**
 * A model call handed to the provider's batch API: what it takes to ask about it later. Plain JSON, recorded in the
 * run's history (no secrets): the batch's id and the id of the one request in it.
 */
export interface SubmittedBatch {
  id: string;
  customId: string;
}

/**
 * Where a batch is, as far as the run cares:
 * - `pending`: still queued or running (`detail` is the provider's own status word);
 * - `ended`: processing is over and results may be read (completed, or expired or cancelled with some results kept:
 *   reading the result says whether this request got an answer);
 * - `failed`: the provider refused the batch as a whole (OpenAI's `failed`, after validating it); sending it again
 *   would fail again.
 */
export type BatchState = { status: 'pending'; detail: string } | { status: 'ended' } | { status: 'failed'; detail: string };

/**
 * What a submission knows of batches an earlier attempt may have created for it:
 * - `since`: a retried attempt: when the submission's first attempt was scheduled (ms since the epoch), so no batch
 *   before it is ours; absent when no attempt of this activity can have sent a create yet;
 * - `pending`, `rejected`: batches an earlier look found that may hold the request (Anthropic, still processing
 *   then), and batches read and found not to hold it;
 * - `canWait`: the workflow can wait for pending candidates (it asked with a BatchSearch); without it, a provider
 *   that cannot decide now creates the batch, as before.
 */
export interface EarlierAttempts {
  since?: number;
  pending?: string[];
  rejected?: string[];
  canWait?: boolean;
}

/**
 * A search for the batch an earlier attempt may have made, not over yet (Anthropic): `pending` may hold the request
 * under `customId`, which shows only once they end. Plain JSON in history; the workflow waits on a timer and submits
 * again with it, and the submission then reads them (workflows/batch-model-call.ts).
 */
export interface BatchSearch {
  customId: string;
  pending: string[];
  rejected: string[];
}

/** What a submission gives back: the batch that carries the request, or a search still waiting on candidates. */
export type SubmitOutcome = SubmittedBatch | { search: BatchSearch };

// The provider's clock and Temporal's may differ: batches a little older than the first attempt are looked at too.
export const clockSkewMs = 10 * 60_000;
// Batches are listed newest first, 100 a page; a retry comes within minutes of its first attempt, so ours is near the
// top. Past this many pages the search gives up (and a batch is created) rather than walk an account's whole history.
export const maxListedPages = 20;

/** The batch metadata key under which a batch names the request it was created for (its custom id). */
export const batchRequestMetadataKey = 'durable_agent_request';

/** What asking about a batch needs of the worker: its environment (API keys), cancellation, the deadline. */
export type BatchContext = Pick<ProviderCall, 'env' | 'signal' | 'timeoutMs'>;

/** The request's custom id within its batch; both APIs accept this pattern (Anthropic's rule, the stricter one). */
export const customIdPattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * A provider's batch API (OpenAI's /v1/batches, Anthropic's Message Batches), for runs nobody waits on: each model
 * call becomes a batch of one request, at the provider's batch price. Each method is one short request: the
 * workflow waits between them on a durable timer, not inside an activity.
 */
export interface BatchCapability {
  /**
   * Sends the request as a batch of one, under `customId` (customIdPattern). With `earlier`, an earlier attempt of
   * this submission may have created the batch before its worker died (the create's answer lost): a provider that
   * can find it returns that batch instead of creating a second, billed one: OpenAI by the batch's metadata;
   * Anthropic by the results of the batches of one request created since, which it may have to wait for (a
   * `search`, only when `earlier.canWait`).
   */
  submit(call: ProviderCall, customId: string, earlier?: EarlierAttempts): Promise<SubmitOutcome>;
  /** One cheap status request. */
  check(batch: SubmittedBatch, context: BatchContext): Promise<BatchState>;
  /**
   * The answer of an ended batch, converted by the provider's own response converter like an online reply (the
   * model's text is as untrusted here as there). Throws BatchRequestLost when the request got no answer that a new
   * batch could not give (expired, cancelled, a server error), and the SDK's error shape (`status`, `error`) when
   * the provider refused the request itself, to be classified as an online refusal is.
   */
  result(batch: SubmittedBatch, call: ProviderCall): Promise<ModelResponse>;
}

/** The request of an ended batch has no answer, for a reason a new batch may not have: expiry, cancellation, an overloaded server. */
export class BatchRequestLost extends AgentError {
  constructor(
    readonly reason: 'expired' | 'canceled' | 'server_error' | 'missing',
    detail: string,
  ) {
    super(detail);
  }
}

/** A request the provider refused inside a batch, shaped like the SDKs' errors so classifyProviderError reads it as their own. */
export class BatchRequestRefused extends AgentError {
  readonly error: { message: string };
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.error = { message };
  }
}
