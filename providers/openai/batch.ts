import type { ModelResponse } from '../../core/messages';
import {
  BatchRequestLost,
  BatchRequestRefused,
  batchRequestMetadataKey,
  clockSkewMs,
  maxListedPages,
  type BatchCapability,
  type BatchState,
} from '../batch-capability';
import type { ProviderCall } from '../provider-call';
import { loadOpenAI, openaiClient } from './client';

/** The endpoints the Batch API takes that a provider of ours calls. */
export type OpenAIBatchEndpoint = '/v1/chat/completions' | '/v1/responses';

/** How one OpenAI provider sends a request and reads its answer: the same prepare and convert steps as its online call. */
export interface OpenAIBatchShape {
  endpoint: OpenAIBatchEndpoint;
  prepare(call: ProviderCall): object;
  convert(body: unknown, call: ProviderCall): ModelResponse;
}

// An output file larger than this is not a batch of one request: refused rather than read into the worker's memory.
const maxResultFileBytes = 32 * 1024 * 1024;

/**
 * OpenAI's Batch API for one endpoint: the request as a one-line JSONL input file (files.create, purpose `batch`),
 * a batch over it (batches.create, completion window 24h), its status (batches.retrieve), and its answer read from
 * the output file, or the error file (files.content), by custom_id.
 */
export function openaiBatch(shape: OpenAIBatchShape): BatchCapability {
  return {
    async submit(call, customId, earlier) {
      const client = await openaiClient(call);
      if (earlier?.since !== undefined) {
        const found = await batchCreatedFor(client, customId, shape.endpoint, earlier.since, call.signal);
        if (found) return { id: found, customId };
      }
      const { toFile } = await loadOpenAI();
      const line = JSON.stringify({ custom_id: customId, method: 'POST', url: shape.endpoint, body: shape.prepare(call) });
      const file = await client.files.create(
        { file: await toFile(Buffer.from(`${line}\n`, 'utf8'), `${customId}.jsonl`), purpose: 'batch' },
        { signal: call.signal },
      );
      // The metadata names the request, so that a retry whose first attempt died mid-create finds this batch.
      const batch = await client.batches.create(
        {
          input_file_id: file.id,
          endpoint: shape.endpoint,
          completion_window: '24h',
          metadata: { [batchRequestMetadataKey]: customId },
        },
        { signal: call.signal },
      );
      return { id: batch.id, customId };
    },

    async check(submitted, context): Promise<BatchState> {
      const client = await openaiClient(context);
      const batch = await client.batches.retrieve(submitted.id, { signal: context.signal });
      switch (batch.status) {
        case 'validating':
        case 'in_progress':
        case 'finalizing':
        case 'cancelling':
          return { status: 'pending', detail: batch.status };
        case 'completed':
        case 'expired':
        case 'cancelled':
          return { status: 'ended' };
        case 'failed': {
          const reasons = (batch.errors?.data ?? []).map((error) => `${error.code ?? 'error'}: ${error.message ?? ''}`);
          return { status: 'failed', detail: reasons.join('; ') || 'the batch failed (no reason given)' };
        }
        default:
          return { status: 'pending', detail: String(batch.status) };
      }
    },

    async result(submitted, call) {
      const client = await openaiClient(call);
      const batch = await client.batches.retrieve(submitted.id, { signal: call.signal });
      const read = async (fileId: string | undefined) =>
        fileId ? lineFor(await fileText(client, fileId, call.signal), submitted.customId) : undefined;
      const answered = await read(batch.output_file_id);
      const line = answered ?? (await read(batch.error_file_id));
      if (!line) {
        const reason = batch.status === 'expired' ? 'expired' : batch.status === 'cancelled' ? 'canceled' : 'missing';
        throw new BatchRequestLost(reason, `batch ${submitted.id} (${batch.status}) has no result for ${submitted.customId}`);
      }
      return answerOf(line, submitted.id, (body) => shape.convert(body, call));
    },
  };
}

/**
 * A 200 answer's body as the online converter expects it: a JSON object with the shape's list, or an error the
 * model activity reports (and Temporal retries, like an unreadable online reply), never a TypeError deep inside.
 */
export function batchAnswer<Body>(body: unknown): Body {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('the batch answer is not a JSON object');
  const shaped = body as { choices?: unknown; output?: unknown };
  if (!Array.isArray(shaped.choices) && !Array.isArray(shaped.output))
    throw new Error('the batch answer has neither choices nor output');
  return body as Body;
}

type OpenAIClient = Awaited<ReturnType<typeof openaiClient>>;

/**
 * The batch an earlier attempt created for `customId`: the newest batches, back to just before the first attempt,
 * searched for our metadata (the Batch API filters by nothing, so it is read here). Undefined when there is none.
 */
async function batchCreatedFor(
  client: OpenAIClient,
  customId: string,
  endpoint: OpenAIBatchEndpoint,
  since: number,
  signal: AbortSignal,
): Promise<string | undefined> {
  const oldest = since - clockSkewMs;
  let page = await client.batches.list({ limit: 100 }, { signal });
  for (let pages = 1; ; pages++) {
    for (const batch of page.data) {
      if (batch.metadata?.[batchRequestMetadataKey] === customId && batch.endpoint === endpoint) return batch.id;
      if (batch.created_at * 1000 < oldest) return undefined;
    }
    if (!page.hasNextPage() || pages >= maxListedPages) return undefined;
    page = await page.getNextPage();
  }
}

async function fileText(client: OpenAIClient, fileId: string, signal: AbortSignal): Promise<string> {
  const response = await client.files.content(fileId, { signal });
  const bytes = Buffer.from(await response.arrayBuffer());
  if (bytes.length > maxResultFileBytes)
    throw new Error(`batch result file ${fileId} is ${bytes.length} bytes, more than a batch of one request can hold`);
  return bytes.toString('utf8');
}

interface OutputLine {
  custom_id?: unknown;
  response?: { status_code?: unknown; body?: unknown } | null;
  error?: { code?: unknown; message?: unknown } | null;
}

/**
 * The line of a JSONL file that answers `customId`. Lines are the server's words, read like any reply: one that is
 * not JSON is skipped, and two lines claiming the same request are refused rather than one of them picked.
 */
export function lineFor(text: string, customId: string): OutputLine | undefined {
  const matches = text.split('\n').flatMap((raw): OutputLine[] => {
    if (!raw.trim()) return [];
    try {
      const line = JSON.parse(raw) as unknown;
      return line && typeof line === 'object' && (line as OutputLine).custom_id === customId ? [line as OutputLine] : [];
    } catch {
      return [];
    }
  });
  // Submitted again (a new batch, a new custom id), up to the run's limit: no answer of the two is taken.
  if (matches.length > 1)
    throw new BatchRequestLost('missing', `the batch result holds ${matches.length} answers to ${customId}; one was expected`);
  return matches[0];
}

function answerOf(line: OutputLine, batchId: string, convert: (body: unknown) => ModelResponse): ModelResponse {
  const status = typeof line.response?.status_code === 'number' ? line.response.status_code : undefined;
  if (status === 200) return convert(line.response!.body);
  const body = line.response?.body as { error?: { message?: unknown } } | undefined;
  const message = String(body?.error?.message ?? line.error?.message ?? 'no message');
  const code = typeof line.error?.code === 'string' ? line.error.code : undefined;
  if (code === 'batch_expired') throw new BatchRequestLost('expired', `batch ${batchId} expired before answering: ${message}`);
  if (code === 'batch_cancelled') throw new BatchRequestLost('canceled', `batch ${batchId} was cancelled: ${message}`);
  // A refusal of the request itself is final, as online; a server error or rate limit may pass in a new batch.
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429)
    throw new BatchRequestRefused(status, message);
  throw new BatchRequestLost('server_error', `batch ${batchId}: HTTP ${status ?? 'none'}: ${message}`);
}
