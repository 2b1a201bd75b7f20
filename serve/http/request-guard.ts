import { hostAllowed, originAllowed } from './origins';

/** Which browsers' requests an endpoint serves: docs/web.md, "Security". */
export interface RequestGuardOptions {
  /**
   * Pages of other origins allowed to call the endpoint from a browser (`https://app.example.com`), answered with
   * CORS headers. The endpoint's own pages (an `Origin` whose host is the request's `Host`) always may; any other
   * `Origin` is refused (403). `*` allows every site: only for an endpoint that authenticates by a header a page
   * cannot make a browser send (not a cookie).
   */
  allowedOrigins?: string[];
  /**
   * The names this endpoint answers to (the `Host` header), which stops DNS rebinding: a page of attacker.example
   * whose name now resolves to this server still says `Host: attacker.example`. Unset: loopback names (localhost,
   * 127.0.0.1, [::1]) and IP addresses, on any port. A list (not empty) replaces that: `chat.example.com` (any port),
   * `localhost:3000` (that port only), `.example.com` (the name and every name under it). `true` allows any name:
   * for an endpoint behind a proxy that checks it.
   */
  allowedHosts?: string[] | true;
}

/** The request's `Host`: the header as the client sent it (a Web Request built by Node or Next.js keeps it). */
function hostOf(request: Request): string {
  return request.headers.get('host') ?? new URL(request.url).host;
}

/**
 * Whether a browser may have this request served, before anything else reads it: a `Host` this endpoint does not
 * answer to (403), an `Origin` of a page it did not serve and was not told to allow (403), a POST whose body is not
 * declared JSON (415: `text/plain` and form posts are what another site can make a browser send without asking
 * first). A CORS preflight from an allowed origin is answered here (204). Undefined: go on.
 */
export function refusal(request: Request, options: RequestGuardOptions): Response | undefined {
  const host = hostOf(request);
  // An empty list (an unset variable split on commas) is no list: the defaults, never a server that answers no one.
  const listed = options.allowedHosts === true || (options.allowedHosts?.length ?? 0) > 0;
  if (!hostAllowed(host, options.allowedHosts ?? [], !listed)) {
    return refuse(
      403,
      `this server does not answer to the name "${host}": add it to allowedHosts (agent serve: --allowed-hosts) if it is this server's`,
    );
  }
  const origin = request.headers.get('origin');
  const allowedOrigins = options.allowedOrigins ?? [];
  if (!originAllowed(origin, allowedOrigins, host)) {
    return refuse(
      403,
      `a page of ${origin} may not call this endpoint: only this server's own pages and allowedOrigins may (agent serve: --allowed-origins)`,
    );
  }
  if (request.method === 'OPTIONS' && origin !== null) {
    return new Response(null, {
      status: 204,
      headers: {
        ...corsHeaders(origin),
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': request.headers.get('access-control-request-headers') ?? 'content-type',
        'access-control-max-age': '600',
      },
    });
  }
  if (request.method === 'POST' && !isJson(request.headers.get('content-type'))) {
    return refuse(415, 'POST a JSON body, with Content-Type: application/json');
  }
  return undefined;
}

/** A response to a page of another allowed origin carries the CORS headers that let that page read it. */
export function withCors(response: Response, request: Request): Response {
  const origin = request.headers.get('origin');
  if (origin === null || originAllowed(origin, [], hostOf(request))) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(corsHeaders(origin))) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

function corsHeaders(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' };
}

/** `application/json`, with parameters (`; charset=utf-8`) or not; nothing else. */
function isJson(contentType: string | null): boolean {
  return contentType?.split(';', 1)[0].trim().toLowerCase() === 'application/json';
}

function refuse(status: number, message: string): Response {
  return Response.json({ error: message }, { status });
}
