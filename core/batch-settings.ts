/**
 * A run in batch mode sends every model call through the provider's batch API (half the price, answered within a
 * day): the workflow submits the call, waits on a durable timer, checks the batch's status with one short request,
 * and waits again, each time twice as long up to `maxCheckIntervalSeconds`, until it has ended; then it reads the
 * answer. A batch that expires (or loses its request otherwise) is submitted again, `maxSubmissions` times in all.
 * The zod schema is in ./input.ts: this file is read by workflow code, which has no zod.
 */
export interface BatchSettings {
  /** The first status check comes this long after the submission. */
  firstCheckSeconds: number;
  /** Checks come at most this far apart (the waits double until then). */
  maxCheckIntervalSeconds: number;
  /** Batches sent for one model call, its resubmissions after an expiry included. */
  maxSubmissions: number;
}

/** What a caller may give: `true` for the defaults, `false` for none, or some of the settings. */
export type BatchOption = boolean | Partial<BatchSettings>;

// Real batches take minutes to hours: a check every five minutes at most costs about 290 checks in a day (five
// history events each), far within a history's limits, and finds an ended batch within five minutes.
export const defaultBatchSettings: BatchSettings = { firstCheckSeconds: 30, maxCheckIntervalSeconds: 300, maxSubmissions: 3 };

/** Chat sessions have someone waiting for each answer: batch mode is for runs nobody waits on. */
export const batchSessionProblem =
  'batch mode is for runs nobody waits on: a session (agent chat, a message at a time) cannot run in batch mode; run it without batch, or as a one-shot run (agent run --batch)';
