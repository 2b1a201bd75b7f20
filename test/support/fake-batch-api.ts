import type http from 'node:http';
import type { FakeStep, ReceivedRequest } from './fake-model-server';

/**
 * The providers' batch APIs, as strict as the real ones, mounted on the fake model server: OpenAI's Files and
 * Batches (`/v1/files`, `/v1/batches`: a JSONL input file, statuses validating → in_progress → finalizing →
 * completed, or expired or failed; output and error files) and Anthropic's Message Batches (`/v1/messages/batches`:
 * in_progress → ended, results by custom_id). Each request of a batch is answered when the batch's processing
 * ends, by the fake's own online rules and script (`answer`), so a batch gets the replies an online call would.
 * What the real APIs refuse is refused: at once where they refuse at once (a missing completion_window, an endpoint
 * they do not batch, Anthropic's custom_id pattern, duplicates, `stream`, the size limits), or as the batch's
 * validation failure (OpenAI: a line that is not JSON or not a request, a line for another endpoint or model).
 * Listing is as the real APIs list: newest first, by pages with a cursor, filtered by nothing; OpenAI's batches carry
 * the metadata they were created with (at most 16 pairs, keys of at most 64 characters, values of at most 512),
 * while Anthropic's Message Batches take no metadata at all (any field beside `requests` is refused).
 * A test may hold create requests (`holdCreates`): the batch exists at once, its answer waits, as when a worker dies
 * with the request in flight.
 */

/** How the next batch goes: how long each stage takes, and how it ends. */
export interface BatchPlan {
  /** OpenAI's `validating` stage. */
  validatingMs?: number;
  /** Processing (`in_progress`) until the requests are answered. */
  inProgressMs?: number;
  /** OpenAI's `finalizing` stage, after the answers (Anthropic: still in_progress). */
  finalizingMs?: number;
  /**
   * `completed` (the default): every request answered. `expired`: the 24 hours passed first, no request answered
   * (OpenAI: status expired, each request `batch_expired` in the error file; Anthropic: ended, each result
   * `expired`). `failed`: OpenAI fails the batch as a whole in validation; Anthropic has no such status, so each
   * result is `errored` with an api_error (a server error).
   */
  outcome?: 'completed' | 'expired' | 'failed';
  /** Finalizing lasts until this settles too (after `finalizingMs`): a test that must see the stage holds it there. */
  finalizingUntil?: Promise<void>;
}

/** The limits of the real APIs; a test may lower them to see the refusals without sending 200 MB. */
export interface BatchLimits {
  openaiMaxRequests: number;
  openaiMaxFileBytes: number;
  anthropicMaxRequests: number;
  anthropicMaxBytes: number;
}

export const realBatchLimits: BatchLimits = {
  openaiMaxRequests: 50_000,
  openaiMaxFileBytes: 200 * 1024 * 1024,
  anthropicMaxRequests: 100_000,
  anthropicMaxBytes: 256 * 1024 * 1024,
};

const defaultPlan: Required<Omit<BatchPlan, 'finalizingUntil'>> = {
  validatingMs: 30,
  inProgressMs: 60,
  finalizingMs: 30,
  outcome: 'completed',
};
const openaiEndpoints = new Set([
  '/v1/chat/completions',
  '/v1/responses',
  '/v1/embeddings',
  '/v1/completions',
  '/v1/moderations',
]);
// The endpoints of ours the fake answers online: a batch of another endpoint's requests would need answers it cannot give.
const answeredEndpoints = new Set(['/v1/chat/completions', '/v1/responses']);
const anthropicCustomId = /^[a-zA-Z0-9_-]{1,64}$/;

export interface BatchLine {
  customId: string;
  url: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON, asserted field by field
}

interface BatchAnswer {
  customId: string;
  step: FakeStep | undefined;
}

/** A batch as the fake keeps it; `calls` and `batches` are what tests assert on. */
export interface FakeBatch {
  id: string;
  api: 'openai' | 'anthropic';
  endpoint: string;
  lines: BatchLine[];
  plan: Required<Omit<BatchPlan, 'finalizingUntil'>> & Pick<BatchPlan, 'finalizingUntil'>;
  createdAt: number;
  /** Set once every request was answered (or the batch expired or failed): processing is over. */
  endedAt?: number;
  answers?: BatchAnswer[];
  outputFileId?: string;
  errorFileId?: string;
  /** OpenAI: why validation failed. */
  errors?: Array<{ code: string; message: string; line: number | null }>;
  /** OpenAI: the metadata it was created with. */
  metadata?: Record<string, string>;
  headers: http.IncomingHttpHeaders;
}

/** Create requests held by `holdCreates`: `held` settles when one has created its batch; `release` answers them all. */
export interface HeldCreates {
  held: Promise<FakeBatch>;
  release(): void;
}

interface FakeFile {
  id: string;
  purpose: string;
  filename: string;
  content: string;
  createdAt: number;
}

export interface BatchApiParts {
  /** Answers one request of a batch as if it came online: its refusal or its scripted step (recorded like one). */
  answer(request: ReceivedRequest): FakeStep | undefined;
  /** The server's own URL: Anthropic's results_url is absolute. */
  url(): string;
}

export class FakeBatchApi {
  /** Every batch created, in order. */
  readonly batches: FakeBatch[] = [];
  /** Every request made to the batch APIs: method, path, and the status answered. */
  readonly calls: Array<{ method: string; path: string; status: number }> = [];
  limits: BatchLimits = { ...realBatchLimits };
  private readonly files = new Map<string, FakeFile>();
  private plans: BatchPlan[] = [];
  private fallbackPlan: BatchPlan = {};
  private sequence = 0;
  private holding?: { created: (batch: FakeBatch) => void; released: Promise<void> };
  private overloadedCreates = 0;

  /**
   * From now on each create request makes its batch at once and answers only when `release` is called: a worker
   * killed meanwhile never hears of the batch it created, as when it dies with the request in flight.
   */
  holdCreates(): HeldCreates {
    let created!: (batch: FakeBatch) => void;
    let release!: () => void;
    const held = new Promise<FakeBatch>((resolve) => (created = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.holding = { created, released };
    return {
      held,
      release: () => {
        this.holding = undefined;
        release();
      },
    };
  }

  /**
   * The next `count` Anthropic create requests are refused 529 overloaded_error, making no batch, as when the API is
   * overloaded: the submission is retried (attempt 2) with no batch of its own anywhere.
   */
  overloadCreates(count: number): this {
    this.overloadedCreates = count;
    return this;
  }

  /** A created batch's answer, held while `holdCreates` holds them. */
  private async answered(batch: FakeBatch, answer: Answer): Promise<Answer> {
    const holding = this.holding;
    if (!holding) return answer;
    holding.created(batch);
    await holding.released;
    return answer;
  }

  constructor(private readonly parts: BatchApiParts) {}

  /** The next batches go this way, one plan each; later ones take `always` (or the default: completed quickly). */
  plan(...plans: BatchPlan[]): this {
    this.plans.push(...plans);
    return this;
  }

  /** The plan of every batch the queue of plans does not cover. */
  always(plan: BatchPlan): this {
    this.fallbackPlan = plan;
    return this;
  }

  reset(): void {
    this.batches.length = 0;
    this.calls.length = 0;
    this.files.clear();
    this.plans = [];
    this.fallbackPlan = {};
    this.limits = { ...realBatchLimits };
    this.holding = undefined;
    this.overloadedCreates = 0;
  }

  /** Whether a request is for the batch APIs (read here, whole: a file upload is multipart, not JSON). */
  owns(request: http.IncomingMessage): boolean {
    const path = (request.url ?? '').split('?')[0];
    return /^\/v1\/(files|batches)(\/|$)/.test(path) || /^\/v1\/messages\/batches(\/|$)/.test(path);
  }

  handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const method = request.method ?? 'GET';
      const [path, search = ''] = (request.url ?? '').split('?');
      const query = new URLSearchParams(search);
      const send = (status: number, body: unknown, contentType = 'application/json') => {
        this.calls.push({ method, path, status });
        response.writeHead(status, { 'content-type': contentType });
        response.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      this.route(method, path, query, request, Buffer.concat(chunks)).then(
        (answer) => send(answer.status, answer.body, answer.contentType),
        (error: Error) => send(500, { error: { message: `fake batch API: ${error.message}` } }),
      );
    });
  }

  private async route(
    method: string,
    path: string,
    query: URLSearchParams,
    request: http.IncomingMessage,
    body: Buffer,
  ): Promise<Answer> {
    const anthropic = path.startsWith('/v1/messages/batches');
    const notFound = () =>
      anthropic ? anthropicRefusal(404, 'not_found_error', `no such path: ${path}`) : openaiRefusal(404, `no such path: ${path}`);
    let match: RegExpExecArray | null;
    if (anthropic) {
      if (method === 'POST' && path === '/v1/messages/batches') return this.createAnthropic(request, body);
      if (method === 'GET' && path === '/v1/messages/batches') return this.listAnthropic(query);
      if (method === 'GET' && (match = /^\/v1\/messages\/batches\/([^/]+)$/.exec(path))) return this.retrieveAnthropic(match[1]);
      if (method === 'GET' && (match = /^\/v1\/messages\/batches\/([^/]+)\/results$/.exec(path)))
        return this.anthropicResults(match[1]);
      return notFound();
    }
    if (method === 'POST' && path === '/v1/files') return this.upload(request, body);
    if (method === 'GET' && (match = /^\/v1\/files\/([^/]+)$/.exec(path))) return this.fileObject(match[1]);
    if (method === 'GET' && (match = /^\/v1\/files\/([^/]+)\/content$/.exec(path))) return this.fileContent(match[1]);
    if (method === 'POST' && path === '/v1/batches') return this.createOpenAI(request, body);
    if (method === 'GET' && path === '/v1/batches') return this.listOpenAI(query);
    if (method === 'GET' && (match = /^\/v1\/batches\/([^/]+)$/.exec(path))) return this.retrieveOpenAI(match[1]);
    return notFound();
  }

  // ---- OpenAI: Files ----

  private async upload(request: http.IncomingMessage, body: Buffer): Promise<Answer> {
    const type = String(request.headers['content-type'] ?? '');
    if (!type.startsWith('multipart/form-data')) return openaiRefusal(400, 'files must be uploaded as multipart/form-data');
    const form = await new Request('http://fake/v1/files', {
      method: 'POST',
      headers: { 'content-type': type },
      body: new Uint8Array(body),
    }).formData();
    const purpose = form.get('purpose');
    const file = form.get('file');
    if (typeof purpose !== 'string' || !purpose) return openaiRefusal(400, "Missing required parameter: 'purpose'.");
    if (!['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'].includes(purpose))
      return openaiRefusal(400, `Invalid value for 'purpose': ${purpose}.`);
    if (!file || typeof file === 'string') return openaiRefusal(400, "Missing required parameter: 'file'.");
    if (file.size > this.limits.openaiMaxFileBytes)
      return openaiRefusal(
        400,
        `File is ${file.size} bytes; the maximum for purpose 'batch' is ${this.limits.openaiMaxFileBytes}.`,
      );
    if (purpose === 'batch' && !file.name.endsWith('.jsonl'))
      return openaiRefusal(400, 'Invalid file format for Batch API. Must be .jsonl');
    const stored = this.storeFile(purpose, file.name, await file.text());
    return ok(fileObjectOf(stored));
  }

  private fileObject(id: string): Answer {
    const file = this.files.get(id);
    return file ? ok(fileObjectOf(file)) : openaiRefusal(404, `No such File object: ${id}`);
  }

  private fileContent(id: string): Answer {
    const file = this.files.get(id);
    if (!file) return openaiRefusal(404, `No such File object: ${id}`);
    return { status: 200, body: file.content, contentType: 'application/octet-stream' };
  }

  private storeFile(purpose: string, filename: string, content: string): FakeFile {
    const file = { id: `file-fake${++this.sequence}`, purpose, filename, content, createdAt: Date.now() };
    this.files.set(file.id, file);
    return file;
  }

  // ---- OpenAI: Batches ----

  private async createOpenAI(request: http.IncomingMessage, body: Buffer): Promise<Answer> {
    const params = parseJson(body) as Record<string, unknown> | undefined;
    if (!params || typeof params !== 'object') return openaiRefusal(400, 'The request body must be a JSON object.');
    for (const name of ['input_file_id', 'endpoint', 'completion_window'])
      if (params[name] === undefined) return openaiRefusal(400, `Missing required parameter: '${name}'.`);
    if (params.completion_window !== '24h')
      return openaiRefusal(400, `Invalid value for 'completion_window': only '24h' is supported.`);
    const endpoint = String(params.endpoint);
    if (!openaiEndpoints.has(endpoint)) return openaiRefusal(400, `Invalid value for 'endpoint': ${endpoint} is not supported.`);
    const file = this.files.get(String(params.input_file_id));
    if (!file) return openaiRefusal(400, `No such File object: ${String(params.input_file_id)}`);
    if (file.purpose !== 'batch') return openaiRefusal(400, `File ${file.id} was not uploaded with purpose 'batch'.`);
    const metadata = openaiMetadata(params.metadata);
    if (typeof metadata === 'string') return openaiRefusal(400, metadata);
    const { lines, errors } = this.validateOpenAILines(file.content, endpoint);
    const batch = this.newBatch('openai', endpoint, lines, request.headers, `batch_fake${++this.sequence}`);
    if (metadata) batch.metadata = metadata;
    if (errors.length > 0) batch.errors = errors;
    // A batch that fails validation, or is planned to, ends at the end of `validating` with status failed.
    if (batch.errors || batch.plan.outcome === 'failed') {
      batch.errors ??= [{ code: 'invalid_request', message: 'The batch failed validation.', line: null }];
      setTimeout(() => (batch.endedAt = Date.now()), batch.plan.validatingMs);
    } else {
      this.process(batch);
    }
    return this.answered(batch, ok(this.openaiBatchObject(batch)));
  }

  /** GET /v1/batches: newest first, `limit` (1 to 100, default 20) a page, after the cursor `after` (a batch id). */
  private listOpenAI(query: URLSearchParams): Answer {
    const limit = query.has('limit') ? Number(query.get('limit')) : 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return openaiRefusal(400, `Invalid 'limit': ${query.get('limit')}. Expected an integer between 1 and 100.`);
    const newestFirst = this.batches.filter((batch) => batch.api === 'openai').reverse();
    const after = query.get('after');
    const start = after === null ? 0 : newestFirst.findIndex((batch) => batch.id === after) + 1;
    if (after !== null && start === 0) return openaiRefusal(400, `Invalid 'after': no batch ${after}.`);
    const page = newestFirst.slice(start, start + limit).map((batch) => this.openaiBatchObject(batch));
    return ok({
      object: 'list',
      data: page,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
      has_more: start + limit < newestFirst.length,
    });
  }

  /** The input file's lines, checked as OpenAI's validation checks them; each problem names its line. */
  private validateOpenAILines(
    content: string,
    endpoint: string,
  ): { lines: BatchLine[]; errors: NonNullable<FakeBatch['errors']> } {
    const lines: BatchLine[] = [];
    const errors: NonNullable<FakeBatch['errors']> = [];
    const seen = new Set<string>();
    let model: unknown;
    const raw = content.split('\n').filter((line) => line.trim());
    if (raw.length === 0) errors.push({ code: 'empty_file', message: 'The input file has no requests.', line: null });
    if (raw.length > this.limits.openaiMaxRequests)
      errors.push({
        code: 'too_many_requests',
        message: `At most ${this.limits.openaiMaxRequests} requests per batch.`,
        line: null,
      });
    raw.forEach((text, index) => {
      const line = index + 1;
      const problem = (code: string, message: string) => errors.push({ code, message, line });
      const parsed = parseJson(Buffer.from(text)) as Record<string, unknown> | undefined;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        return problem('invalid_json_line', 'This line is not parseable as valid JSON.');
      const { custom_id: customId, method, url, body } = parsed;
      if (typeof customId !== 'string' || !customId) return problem('missing_custom_id', "The line has no string 'custom_id'.");
      if (seen.has(customId)) return problem('duplicate_custom_id', `The custom_id ${customId} appears more than once.`);
      seen.add(customId);
      if (method !== 'POST') return problem('invalid_method', "Only 'POST' requests are supported.");
      if (url !== endpoint)
        return problem('mismatched_endpoint', `The line's url ${String(url)} is not the batch's endpoint ${endpoint}.`);
      if (!body || typeof body !== 'object' || Array.isArray(body))
        return problem('invalid_body', "The line's body must be an object.");
      const request = body as Record<string, unknown>;
      if (typeof request.model !== 'string' || !request.model) return problem('missing_model', "The body has no 'model'.");
      if (this.unknownModels.has(request.model)) return problem('model_not_found', `The model ${request.model} does not exist.`);
      if (model !== undefined && request.model !== model)
        return problem('mismatched_model', 'All requests of a batch must use the same model.');
      model = request.model;
      if (request.stream === true) return problem('invalid_request', 'Streaming is not supported in a batch.');
      lines.push({ customId, url, body: request });
    });
    if (!answeredEndpoints.has(endpoint) && errors.length === 0)
      errors.push({ code: 'unsupported', message: `The fake answers no ${endpoint} requests.`, line: null });
    return { lines, errors };
  }

  /** Models the APIs do not know: their requests are refused (OpenAI: in validation; Anthropic: an errored result). */
  readonly unknownModels = new Set<string>();

  private retrieveOpenAI(id: string): Answer {
    const batch = this.batches.find((candidate) => candidate.id === id && candidate.api === 'openai');
    return batch ? ok(this.openaiBatchObject(batch)) : openaiRefusal(404, `No batch found with id '${id}'.`);
  }

  private openaiBatchObject(batch: FakeBatch) {
    const status = openaiStatus(batch);
    const seconds = (ms: number) => Math.floor(ms / 1000);
    const total = batch.lines.length;
    let outputFileId: string | undefined;
    let errorFileId: string | undefined;
    let completed = 0;
    let failed = 0;
    if (status === 'completed' || status === 'expired') {
      const outputs = (batch.answers ?? []).map((answer, index) => openaiOutputLine(batch, answer, index));
      const succeeded = outputs.filter((line) => line.response.status_code === 200);
      const errored = outputs.filter((line) => line.response.status_code !== 200);
      // Requests never answered before the batch expired are in the error file, as batch_expired.
      const expired = batch.lines
        .filter((line) => !batch.answers?.some((answer) => answer.customId === line.customId))
        .map((line, index) => ({
          id: `batch_req_expired${index}`,
          custom_id: line.customId,
          response: null,
          error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' },
        }));
      completed = succeeded.length;
      failed = errored.length + expired.length;
      // Successful requests go to the output file; refused or failed ones, and those that expired, to the error file.
      const jsonl = (lines: unknown[]) => lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
      if (succeeded.length > 0)
        outputFileId = batch.outputFileId ??= this.storeFile('batch_output', `${batch.id}_output.jsonl`, jsonl(succeeded)).id;
      const errors = [...errored, ...expired];
      if (errors.length > 0)
        errorFileId = batch.errorFileId ??= this.storeFile('batch_output', `${batch.id}_error.jsonl`, jsonl(errors)).id;
    }
    return {
      id: batch.id,
      object: 'batch',
      endpoint: batch.endpoint,
      errors: batch.errors && status === 'failed' ? { object: 'list', data: batch.errors } : null,
      input_file_id: 'file-input',
      completion_window: '24h',
      status,
      output_file_id: outputFileId ?? null,
      error_file_id: errorFileId ?? null,
      created_at: seconds(batch.createdAt),
      in_progress_at: null,
      expires_at: seconds(batch.createdAt) + 24 * 3600,
      finalizing_at: null,
      completed_at: status === 'completed' ? seconds(batch.endedAt!) : null,
      failed_at: status === 'failed' ? seconds(batch.endedAt!) : null,
      expired_at: status === 'expired' ? seconds(batch.endedAt!) : null,
      cancelling_at: null,
      cancelled_at: null,
      request_counts: { total, completed, failed },
      metadata: batch.metadata ?? null,
    };
  }

  // ---- Anthropic: Message Batches ----

  private async createAnthropic(request: http.IncomingMessage, body: Buffer): Promise<Answer> {
    if (this.overloadedCreates > 0) {
      this.overloadedCreates--;
      return anthropicRefusal(529, 'overloaded_error', 'Overloaded');
    }
    if (body.length > this.limits.anthropicMaxBytes)
      return anthropicRefusal(413, 'request_too_large', `A batch may be at most ${this.limits.anthropicMaxBytes} bytes.`);
    const params = parseJson(body) as { requests?: unknown } | undefined;
    // The body is `requests` and nothing else: Message Batches carry no metadata.
    const extraField = Object.keys(params ?? {}).find((name) => name !== 'requests');
    if (extraField !== undefined)
      return anthropicRefusal(400, 'invalid_request_error', `${extraField}: Extra inputs are not permitted`);
    const requests = params?.requests;
    if (!Array.isArray(requests) || requests.length === 0)
      return anthropicRefusal(400, 'invalid_request_error', 'requests: a batch needs at least one request');
    if (requests.length > this.limits.anthropicMaxRequests)
      return anthropicRefusal(
        400,
        'invalid_request_error',
        `requests: at most ${this.limits.anthropicMaxRequests} requests per batch`,
      );
    const seen = new Set<string>();
    const lines: BatchLine[] = [];
    for (const [index, entry] of requests.entries()) {
      const where = `requests.${index}`;
      const { custom_id: customId, params: messageParams, ...extra } = (entry ?? {}) as Record<string, unknown>;
      if (Object.keys(extra).length > 0)
        return anthropicRefusal(
          400,
          'invalid_request_error',
          `${where}.${Object.keys(extra)[0]}: Extra inputs are not permitted`,
        );
      if (typeof customId !== 'string' || !anthropicCustomId.test(customId))
        return anthropicRefusal(
          400,
          'invalid_request_error',
          `${where}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`,
        );
      if (seen.has(customId))
        return anthropicRefusal(
          400,
          'invalid_request_error',
          `${where}.custom_id: custom_id must be unique within the batch (${customId})`,
        );
      seen.add(customId);
      if (!messageParams || typeof messageParams !== 'object' || Array.isArray(messageParams))
        return anthropicRefusal(400, 'invalid_request_error', `${where}.params: Field required`);
      if ((messageParams as Record<string, unknown>).stream !== undefined)
        return anthropicRefusal(400, 'invalid_request_error', `${where}.params.stream: streaming is not supported in a batch`);
      lines.push({ customId, url: '/v1/messages', body: messageParams as Record<string, unknown> });
    }
    const batch = this.newBatch('anthropic', '/v1/messages', lines, request.headers, `msgbatch_fake${++this.sequence}`);
    this.process(batch);
    return this.answered(batch, ok(anthropicBatchObject(batch, this.parts.url())));
  }

  /** GET /v1/messages/batches: newest first, `limit` (1 to 1000, default 20) a page, after the cursor `after_id`. */
  private listAnthropic(query: URLSearchParams): Answer {
    const limit = query.has('limit') ? Number(query.get('limit')) : 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      return anthropicRefusal(400, 'invalid_request_error', 'limit: Input should be between 1 and 1000');
    const newestFirst = this.batches.filter((batch) => batch.api === 'anthropic').reverse();
    const after = query.get('after_id');
    const start = after === null ? 0 : newestFirst.findIndex((batch) => batch.id === after) + 1;
    const page = newestFirst.slice(start, start + limit).map((batch) => anthropicBatchObject(batch, this.parts.url()));
    return ok({
      data: page,
      has_more: start + limit < newestFirst.length,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
    });
  }

  private retrieveAnthropic(id: string): Answer {
    const batch = this.batches.find((candidate) => candidate.id === id && candidate.api === 'anthropic');
    return batch
      ? ok(anthropicBatchObject(batch, this.parts.url()))
      : anthropicRefusal(404, 'not_found_error', `message batch ${id} not found`);
  }

  private anthropicResults(id: string): Answer {
    const batch = this.batches.find((candidate) => candidate.id === id && candidate.api === 'anthropic');
    if (!batch) return anthropicRefusal(404, 'not_found_error', `message batch ${id} not found`);
    if (!ended(batch)) return anthropicRefusal(400, 'invalid_request_error', `message batch ${id} has not ended: no results yet`);
    const lines = batch.lines.map((line) => JSON.stringify({ custom_id: line.customId, result: anthropicResult(batch, line) }));
    return { status: 200, body: `${lines.join('\n')}\n`, contentType: 'application/binary' };
  }

  // ---- Both ----

  private newBatch(
    api: FakeBatch['api'],
    endpoint: string,
    lines: BatchLine[],
    headers: http.IncomingHttpHeaders,
    id: string,
  ): FakeBatch {
    const plan = { ...defaultPlan, ...this.fallbackPlan, ...(this.plans.shift() ?? {}) };
    const batch: FakeBatch = { id, api, endpoint, lines, plan, createdAt: Date.now(), headers };
    this.batches.push(batch);
    return batch;
  }

  /**
   * Answers the batch's requests once its processing time has passed (the script is consumed then, in the order
   * batches end), or lets it expire unanswered; the batch ends after finalizing.
   */
  private process(batch: FakeBatch): void {
    const { validatingMs, inProgressMs, finalizingMs, outcome } = batch.plan;
    const processing = (batch.api === 'openai' ? validatingMs : 0) + inProgressMs;
    // Unreferenced: a batch still processing when a test file ends does not hold its process open.
    setTimeout(() => {
      void this.answerAll(batch, outcome).then((answers) => {
        batch.answers = answers;
        setTimeout(
          () => void Promise.resolve(batch.plan.finalizingUntil).then(() => (batch.endedAt = Date.now())),
          finalizingMs,
        ).unref();
      });
    }, processing).unref();
  }

  private async answerAll(batch: FakeBatch, outcome: BatchPlan['outcome']): Promise<BatchAnswer[]> {
    if (outcome !== 'completed') return [];
    const answers: BatchAnswer[] = [];
    for (const line of batch.lines) {
      const model = typeof line.body.model === 'string' ? line.body.model : '';
      if (batch.api === 'anthropic' && this.unknownModels.has(model)) {
        answers.push({
          customId: line.customId,
          step: { status: 404, json: anthropicErrorBody('not_found_error', `model: ${model}`) },
        });
        continue;
      }
      const received: ReceivedRequest = {
        path: line.url,
        headers: batch.headers,
        body: line.body,
        rawBody: JSON.stringify(line.body),
        receivedAt: Date.now(),
        batchId: batch.id,
      };
      answers.push({ customId: line.customId, step: await settled(this.parts.answer(received)) });
    }
    return answers;
  }
}

interface Answer {
  status: number;
  body: unknown;
  contentType?: string;
}

function ok(body: unknown): Answer {
  return { status: 200, body };
}

function openaiRefusal(status: number, message: string): Answer {
  return { status, body: { error: { message, type: 'invalid_request_error', param: null, code: null } } };
}

function anthropicErrorBody(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}

function anthropicRefusal(status: number, type: string, message: string): Answer {
  return { status, body: anthropicErrorBody(type, message) };
}

/** OpenAI's metadata rules: absent or null, or at most 16 string pairs, keys of at most 64 characters, values of at most 512; else the refusal. */
function openaiMetadata(metadata: unknown): Record<string, string> | undefined | string {
  if (metadata === undefined || metadata === null) return undefined;
  if (typeof metadata !== 'object' || Array.isArray(metadata)) return "Invalid type for 'metadata': expected an object.";
  const entries = Object.entries(metadata);
  if (entries.length > 16) return "Invalid 'metadata': at most 16 key-value pairs.";
  for (const [key, value] of entries) {
    if (key.length > 64) return `Invalid 'metadata': the key ${key.slice(0, 16)}… is longer than 64 characters.`;
    if (typeof value !== 'string') return `Invalid type for 'metadata.${key}': expected a string.`;
    if (value.length > 512) return `Invalid 'metadata.${key}': longer than 512 characters.`;
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A scripted step as the one answer it stands for: a gate waited on; steps that only make sense online become a server error. */
async function settled(step: FakeStep | undefined): Promise<FakeStep | undefined> {
  if (step && 'gate' in step) {
    await step.gate;
    return settled(step.then);
  }
  return step;
}

function ended(batch: FakeBatch): boolean {
  return batch.endedAt !== undefined;
}

function fileObjectOf(file: FakeFile) {
  return {
    id: file.id,
    object: 'file',
    bytes: Buffer.byteLength(file.content),
    created_at: Math.floor(file.createdAt / 1000),
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
  };
}

/** Status, as OpenAI reports it at this moment of the batch's plan. */
function openaiStatus(batch: FakeBatch): string {
  const { plan } = batch;
  if (batch.errors) return ended(batch) ? 'failed' : 'validating';
  if (Date.now() - batch.createdAt < plan.validatingMs) return 'validating';
  if (!batch.answers) return 'in_progress';
  if (!ended(batch)) return 'finalizing';
  return plan.outcome === 'expired' ? 'expired' : 'completed';
}

/** One output-file line for an answered request: the step's status and JSON; a step a batch cannot carry is a 500. */
function openaiOutputLine(batch: FakeBatch, answer: BatchAnswer, index: number) {
  const step = answer.step;
  const json =
    step && 'json' in step ? step.json : { error: { message: 'fake model server: no scripted answer for this batch request' } };
  const status = step && 'json' in step ? (step.status ?? 200) : 500;
  return {
    id: `batch_req_fake${index}`,
    custom_id: answer.customId,
    response: { status_code: status, request_id: `req_${batch.id}_${index}`, body: json },
    error: null,
  };
}

function anthropicBatchObject(batch: FakeBatch, url: string) {
  const done = ended(batch);
  const results = done ? batch.lines.map((line) => anthropicResult(batch, line).type) : [];
  const count = (type: string) => results.filter((result) => result === type).length;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: batch.id,
    type: 'message_batch',
    processing_status: done ? 'ended' : 'in_progress',
    request_counts: {
      processing: done ? 0 : batch.lines.length,
      succeeded: count('succeeded'),
      errored: count('errored'),
      canceled: count('canceled'),
      expired: count('expired'),
    },
    ended_at: done ? iso(batch.endedAt!) : null,
    created_at: iso(batch.createdAt),
    expires_at: iso(batch.createdAt + 24 * 3600 * 1000),
    archived_at: null,
    cancel_initiated_at: null,
    results_url: done ? `${url}/v1/messages/batches/${batch.id}/results` : null,
  };
}

/** The result of one request of an ended Anthropic batch: its message, its error, or expired. */
function anthropicResult(batch: FakeBatch, line: BatchLine) {
  if (batch.plan.outcome === 'expired') return { type: 'expired' };
  if (batch.plan.outcome === 'failed')
    return {
      type: 'errored',
      error: anthropicErrorBody('api_error', 'Internal server error while processing the batch request'),
    };
  const step = batch.answers?.find((answer) => answer.customId === line.customId)?.step;
  if (!step || !('json' in step))
    return {
      type: 'errored',
      error: anthropicErrorBody('api_error', 'fake model server: no scripted answer for this batch request'),
    };
  const status = step.status ?? 200;
  if (status === 200) return { type: 'succeeded', message: step.json };
  const error = (step.json as { error?: { type?: string; message?: string } }).error;
  return { type: 'errored', error: anthropicErrorBody(error?.type ?? 'api_error', error?.message ?? `HTTP ${status}`) };
}
