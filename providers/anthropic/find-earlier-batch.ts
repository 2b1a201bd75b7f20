import type Anthropic from '@anthropic-ai/sdk';
import type { MessageBatch } from '@anthropic-ai/sdk/resources/messages';
import { clockSkewMs, maxListedPages, type EarlierAttempts, type SubmitOutcome } from '../batch-capability';

// More candidates than this (batches of one request created since the first attempt, each read once it ends) and
// the search gives up: the batch is created, as before the search existed, rather than hold the run on many batches.
const maxCandidates = 20;

/**
 * The batch an earlier attempt of this submission created for `customId`, when its worker died before hearing the
 * create's answer. Message Batches take no metadata and show a batch's custom ids only in its results, once it has
 * ended: so the candidates are the batches of one request (as ours) created since just before the first attempt,
 * plus those an earlier look left pending, less those read and found not ours. Ended ones are read now; the batch
 * holding our custom id is adopted (its answer is ours, and nothing more is billed). Candidates still processing
 * are handed back as a search for the workflow to wait on, when it can; undefined means no batch is ours: create.
 */
export async function findEarlierBatch(
  client: Anthropic,
  customId: string,
  earlier: EarlierAttempts,
  signal: AbortSignal,
): Promise<SubmitOutcome | undefined> {
  const rejected = new Set(earlier.rejected ?? []);
  const candidates = new Map<string, MessageBatch | undefined>((earlier.pending ?? []).map((id) => [id, undefined]));
  if (earlier.since !== undefined) {
    const listed = await batchesOfOneSince(client, earlier.since - clockSkewMs, signal);
    if (listed === undefined) return undefined;
    for (const batch of listed) if (!rejected.has(batch.id)) candidates.set(batch.id, batch);
  }
  if (candidates.size > maxCandidates) return undefined;
  const pending: string[] = [];
  for (const [id, listed] of candidates) {
    const batch = listed ?? (await retrieved(client, id, signal));
    if (batch === undefined) rejected.add(id);
    else if (batch.processing_status !== 'ended') pending.push(id);
    else if (await holds(client, id, customId, signal)) return { id, customId };
    else rejected.add(id);
  }
  if (pending.length === 0 || !earlier.canWait) return undefined;
  return { search: { customId, pending, rejected: [...rejected] } };
}

/** The batches of exactly one request created since `oldest` (ms), newest first; undefined past the page bound. */
async function batchesOfOneSince(client: Anthropic, oldest: number, signal: AbortSignal): Promise<MessageBatch[] | undefined> {
  const found: MessageBatch[] = [];
  let page = await client.messages.batches.list({ limit: 100 }, { signal });
  for (let pages = 1; ; pages++) {
    for (const batch of page.data) {
      if (Date.parse(batch.created_at) < oldest) return found;
      if (requestCount(batch) === 1) found.push(batch);
    }
    if (!page.hasNextPage()) return found;
    if (pages >= maxListedPages) return undefined;
    page = await page.getNextPage();
  }
}

function requestCount({ request_counts: counts }: MessageBatch): number {
  return counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired;
}

/** A candidate's state now; undefined when it is gone (deleted by someone): it cannot be ours to read. */
async function retrieved(client: Anthropic, id: string, signal: AbortSignal): Promise<MessageBatch | undefined> {
  try {
    return await client.messages.batches.retrieve(id, {}, { signal });
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw error;
  }
}

/** Whether an ended batch's results carry a result for `customId`. */
async function holds(client: Anthropic, id: string, customId: string, signal: AbortSignal): Promise<boolean> {
  const results = await client.messages.batches.results(id, {}, { signal });
  for await (const entry of results) if (entry?.custom_id === customId) return true;
  return false;
}
