import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { PayloadCodec } from '@temporalio/common';
import { originAllowed as allowsOrigin } from './http/origins';
import { payloadsFromJson, payloadsToJson } from '../storage/payload-json';

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Browser origins allowed to call the server (the Web UI's address); `*` allows any. */
  allowedOrigins: string[];
  /**
   * When set, every POST must carry it: `Authorization: Bearer <token>` (the `temporal` CLI's
   * `--codec-auth`, scripts) or `Authorization: Basic` with the token as the password (what a
   * browser sends once signed in at the server's address, for the Web UI: docs/production.md).
   */
  authToken?: string;
  /** A request body larger than this is refused with 413, before it is read (default 8 MiB). */
  maxRequestBytes?: number;
  /** Requests read and converted at once (default 4); each may hold a few times its body in memory. */
  maxConcurrentRequests?: number;
  /** Requests that wait, unread, for one of those places (default 64); more get 503 with Retry-After. */
  maxQueuedRequests?: number;
  /** Called with each refused or failed request, for the operator's log. */
  log?: (line: string) => void;
}

/**
 * History's payloads are at most 2 MB each, and this project's larger ones reach the codec server only as
 * claims of a few hundred bytes (external storage runs after the codec): 8 MiB is a generous page.
 */
export const defaultMaxRequestBytes = 8 * 1024 * 1024;
export const defaultMaxConcurrentRequests = 4;
export const defaultMaxQueuedRequests = 64;
/** A request whose body has not arrived by then is dropped: a slow sender must not hold a place forever. */
const requestTimeoutMs = 30_000;

/**
 * Temporal's codec-server protocol over plain HTTP: POST …/encode and
 * POST …/decode take and return `{"payloads": [...]}` in protobuf JSON. Only the
 * last path segment counts, so the server can sit under any prefix (e.g.
 * /namespace/decode). CORS lets the Web UI, running in a browser on another
 * origin, call it; credentials are allowed so the UI's "include cross-origin
 * credentials" and "pass access token" settings work.
 */
export function createCodecServer(options: CodecServerOptions): http.Server {
  const log = options.log ?? (() => {});
  const maxRequestBytes = options.maxRequestBytes ?? defaultMaxRequestBytes;
  // Eight 60 MB requests at once would hold gigabytes: a few are converted at a time, the rest wait unread
  // (the socket stops reading once its small buffer is full), and past the queue they are turned away.
  const places = new Semaphore(
    options.maxConcurrentRequests ?? defaultMaxConcurrentRequests,
    options.maxQueuedRequests ?? defaultMaxQueuedRequests,
  );
  const server = http.createServer((request, response) => {
    handle(request, response, options).catch((error: Error) => {
      log(`${request.method} ${pathOf(request)}: ${error.message}`);
      if (!response.headersSent) send(response, 500, { error: 'internal error' });
    });
  });
  server.requestTimeout = requestTimeoutMs;
  return server;

  async function handle(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    { codec, allowedOrigins, authToken }: CodecServerOptions,
  ) {
    const origin = request.headers.origin;
    // The one origin check (serve/http/origins.ts): none (not a browser's cross-site request), `*`, or one of the list.
    const originAllowed = allowsOrigin(origin, allowedOrigins);
    if (origin !== undefined && originAllowed) {
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    response.setHeader('Vary', 'Origin');

    const path = pathOf(request);
    // The browser's way to the token: opened once at this address, the server asks for a user name and
    // password (Basic); the browser then sends them with the Web UI's codec requests when the UI includes
    // cross-origin credentials (TEMPORAL_CODEC_INCLUDE_CREDENTIALS, or its Data Encoder settings).
    if (path === '/' && request.method === 'GET') return signIn(request, response, authToken);
    const endpoint = path.split('/').filter(Boolean).pop();
    if (endpoint !== 'encode' && endpoint !== 'decode')
      return send(response, 404, { error: 'not found: POST /encode or /decode' });
    if (!originAllowed) {
      log(`refused ${request.method} /${endpoint} from origin ${origin} (allowed: ${allowedOrigins.join(', ')})`);
      return send(response, 403, { error: `origin ${origin} is not allowed` });
    }
    if (request.method === 'OPTIONS') {
      response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      response.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      response.setHeader('Access-Control-Max-Age', '600');
      response.writeHead(204).end();
      return;
    }
    if (request.method !== 'POST') {
      response.setHeader('Allow', 'POST, OPTIONS');
      return send(response, 405, { error: `${request.method} is not allowed: use POST` });
    }
    if (authToken !== undefined && !tokenPresented(request.headers.authorization, authToken)) {
      log(`refused POST /${endpoint}: missing or wrong token`);
      response.setHeader('WWW-Authenticate', `Bearer, ${basicChallenge}`);
      return send(response, 401, {
        error: 'a valid token is required: Authorization: Bearer <token>, or Basic with the token as password',
      });
    }
    const declaredLength = Number(request.headers['content-length'] ?? 0);
    if (declaredLength > maxRequestBytes) return refuseTooLarge(request, response, endpoint);
    const place = places.enter();
    if (!place) {
      log(`refused POST /${endpoint}: ${places.describe()}`);
      response.setHeader('Retry-After', '1');
      return refuse(request, response, 503, { error: `busy: ${places.describe()}; retry in a second` });
    }
    await place;
    try {
      const body = await readBody(request, maxRequestBytes);
      if (body === undefined) return refuseTooLarge(request, response, endpoint);
      await convert(response, endpoint, body, codec);
    } finally {
      places.leave();
    }
  }

  function signIn(request: http.IncomingMessage, response: http.ServerResponse, authToken: string | undefined): void {
    if (authToken !== undefined && !tokenPresented(request.headers.authorization, authToken)) {
      response.setHeader('WWW-Authenticate', basicChallenge);
      return sendText(response, 401, 'Sign in with any user name and the codec server token as the password.\n');
    }
    sendText(
      response,
      200,
      authToken === undefined
        ? 'This codec server takes no token.\n'
        : 'Signed in: this browser now sends the token to this codec server with requests that include credentials.\n',
    );
  }

  function refuseTooLarge(request: http.IncomingMessage, response: http.ServerResponse, endpoint: string): void {
    log(`refused POST /${endpoint}: the body is larger than ${maxRequestBytes} bytes`);
    refuse(request, response, 413, { error: `the body is larger than ${maxRequestBytes} bytes` });
  }

  /**
   * Answers at once, before the body has arrived, then reads what is left of it and drops it, keeping nothing:
   * a client still sending sees the answer instead of a broken connection, and a sender that never stops is
   * cut off by the request timeout.
   */
  function refuse(request: http.IncomingMessage, response: http.ServerResponse, status: number, body: unknown): void {
    send(response, status, body);
    request.resume();
  }

  async function convert(
    response: http.ServerResponse,
    endpoint: 'encode' | 'decode',
    body: Buffer,
    codec: PayloadCodec,
  ): Promise<void> {
    let payloads;
    try {
      payloads = payloadsFromJson(JSON.parse(body.toString('utf8')));
    } catch (error) {
      return send(response, 400, { error: `invalid request: ${(error as Error).message}` });
    }
    try {
      const converted = endpoint === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
      send(response, 200, payloadsToJson(converted));
    } catch (error) {
      // The protocol answers a codec error with 400; the message (e.g. which key is missing) is for the operator.
      log(`${endpoint} failed: ${(error as Error).message}`);
      send(response, 400, { error: (error as Error).message });
    }
  }
}

/** What makes a browser ask for a user name and password (any name; the token as password), and remember them. */
const basicChallenge = 'Basic realm="durable-agent codec server", charset="UTF-8"';

/** `Bearer <token>`, or `Basic` credentials whose password is the token (the user name is not checked). */
export function tokenPresented(header: string | undefined, token: string): boolean {
  if (!header) return false;
  if (/^Basic /i.test(header)) {
    const credentials = Buffer.from(header.slice('Basic '.length).trim(), 'base64').toString('utf8');
    const colon = credentials.indexOf(':');
    return colon >= 0 && sameSecret(credentials.slice(colon + 1), token);
  }
  return sameSecret(header, `Bearer ${token}`);
}

function sameSecret(presented: string, expected: string): boolean {
  const [a, b] = [Buffer.from(presented), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The path without its query: a token or a payload must never reach the operator's log through a URL. */
function pathOf(request: http.IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://codec').pathname;
}

/** The body, or undefined as soon as it passes `maxBytes` (what came so far is dropped, and reading stops). */
function readBody(request: http.IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      request.off('data', onData);
      request.pause();
      chunks.length = 0;
      resolve(undefined);
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * At most `limit` holders at once, and at most `queueLimit` waiting for a place. `enter` resolves once
 * the place is held, or is undefined when the queue is full; `leave` frees the place.
 */
class Semaphore {
  private held = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly queueLimit: number,
  ) {}

  enter(): Promise<void> | undefined {
    if (this.held < this.limit) {
      this.held++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.queueLimit) return undefined;
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  leave(): void {
    const next = this.waiting.shift();
    // The place passes to the next in line as it is.
    if (next) next();
    else this.held--;
  }

  describe(): string {
    return `${this.held} request(s) being converted (at most ${this.limit}) and ${this.waiting.length} waiting (at most ${this.queueLimit})`;
  }
}

function sendText(response: http.ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  response.end(text);
}

function send(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}
