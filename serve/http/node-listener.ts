import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** The address each request came from, as its socket says (a header could say anything). */
const peers = new WeakMap<Request, string>();

/** The address of the client that sent `request` (a proxy, behind one), when toNodeListener made it. */
export function peerAddress(request: Request): string | undefined {
  return peers.get(request);
}

/**
 * Mounts a fetch-style handler (Request in, Response out) on node:http, and so on Express
 * (`app.use('/api/chat', toNodeListener(handler))` before any body parser, or `app.all('/api/chat*', ...)`).
 * The request's signal aborts when the client goes away, which stops following the session (the turn goes on);
 * the response body is written as it comes, so a stream reaches the browser chunk by chunk.
 */
export function toNodeListener(
  handler: (request: Request) => Promise<Response>,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (incoming, outgoing) => {
    const gone = new AbortController();
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) gone.abort();
    });
    void respond(handler, incoming, outgoing, gone.signal).catch((error: Error) => {
      // The handler's own failure: said to the operator, not to the browser.
      console.error(`${incoming.method} ${incoming.url} failed:`, error);
      if (!outgoing.headersSent) {
        outgoing.writeHead(500, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ error: 'the handler failed; the server logged why' }));
      } else outgoing.destroy(error);
    });
  };
}

async function respond(
  handler: (request: Request) => Promise<Response>,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  let request: Request;
  try {
    request = toRequest(incoming, signal);
  } catch (error) {
    // A Host no URL can hold (`a b`, `[::1`, `user@host`) or a target or method no Request takes: the client's
    // error, said to it, and nothing reads the request.
    outgoing.writeHead(400, { 'content-type': 'application/json' });
    outgoing.end(JSON.stringify({ error: `a malformed request: ${(error as Error).message}` }));
    return;
  }
  const response = await handler(request);
  const headers: Record<string, string[]> = {};
  response.headers.forEach((value, name) => (headers[name] = [...(headers[name] ?? []), value]));
  outgoing.writeHead(response.status, headers);
  // Sent now: a stream's first chunk may be a while away, and the client learns meanwhile that it is connected.
  outgoing.flushHeaders();
  if (!response.body) {
    outgoing.end();
    return;
  }
  const reader = response.body.getReader();
  signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) break;
      outgoing.write(value);
    }
  } finally {
    outgoing.end();
  }
}

/** The origin a `Host` header names: exactly a name (or address) and a port, nothing else a URL could hold. */
function hostUrl(host: string): URL {
  let parsed: URL | undefined;
  try {
    parsed = new URL(`http://${host}`);
  } catch {
    parsed = undefined;
  }
  if (!parsed || parsed.username || parsed.password || parsed.pathname !== '/' || parsed.search || parsed.hash)
    throw new Error(`the Host header ${JSON.stringify(host)} is not a name and a port`);
  return parsed;
}

function toRequest(incoming: IncomingMessage, signal: AbortSignal): Request {
  const host = incoming.headers.host ?? 'localhost';
  const url = new URL(incoming.url ?? '/', hostUrl(host));
  if (url.username || url.password) throw new Error('the request target carries a user name or password');
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const hasBody = incoming.method !== 'GET' && incoming.method !== 'HEAD';
  const request = new Request(url, {
    method: incoming.method,
    headers,
    signal,
    ...(hasBody && { body: Readable.toWeb(incoming) as ReadableStream<Uint8Array>, duplex: 'half' }),
  } as RequestInit);
  if (incoming.socket.remoteAddress) peers.set(request, incoming.socket.remoteAddress);
  return request;
}
