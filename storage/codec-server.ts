import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { PayloadCodec } from '@temporalio/common';
import { payloadsFromJson, payloadsToJson } from './payload-json';

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Browser origins allowed to call the server (the Web UI's address); `*` allows any. */
  allowedOrigins: string[];
  /** When set, every POST must carry `Authorization: Bearer <token>`. */
  authToken?: string;
  /** Called with each refused or failed request, for the operator's log. */
  log?: (line: string) => void;
}

/** Requests carry a page of history's payloads; a bound keeps a bad client from exhausting memory. */
const maxBodyBytes = 64 * 1024 * 1024;

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
  return http.createServer((request, response) => {
    handle(request, response, options).catch((error: Error) => {
      log(`${request.method} ${request.url}: ${error.message}`);
      if (!response.headersSent) send(response, 500, { error: 'internal error' });
    });
  });

  async function handle(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    { codec, allowedOrigins, authToken }: CodecServerOptions,
  ) {
    const origin = request.headers.origin;
    const originAllowed = origin === undefined || allowedOrigins.includes('*') || allowedOrigins.includes(origin);
    if (origin !== undefined && originAllowed) {
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    response.setHeader('Vary', 'Origin');

    const endpoint = new URL(request.url ?? '/', 'http://codec').pathname.split('/').filter(Boolean).pop();
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
    if (authToken !== undefined && !bearerMatches(request.headers.authorization, authToken)) {
      log(`refused POST /${endpoint}: missing or wrong bearer token`);
      response.setHeader('WWW-Authenticate', 'Bearer');
      return send(response, 401, { error: 'a valid Authorization: Bearer token is required' });
    }

    const body = await readBody(request);
    if (body === undefined) {
      response.setHeader('Connection', 'close');
      return send(response, 413, { error: `the body is larger than ${maxBodyBytes} bytes` });
    }
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

function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(header ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

function readBody(request: http.IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        request.pause();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function send(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}
