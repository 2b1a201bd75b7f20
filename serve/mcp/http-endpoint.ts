import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createMcpHandler, isLegacyRequest, type Server as ModernServer } from '@modelcontextprotocol/server';
import { ChatRequestError } from '../http/request-error';
import { defaultMaxBodyBytes, readJsonBody } from '../http/request-body';
import { refusal, withCors, type RequestGuardOptions } from '../http/request-guard';

export interface AgentMcpHttpOptions extends RequestGuardOptions {
  /** The request's principal, as `agent serve`'s authorize: undefined or empty is nobody (401). */
  authorize(request: Request): string | undefined | Promise<string | undefined>;
  /** The MCP server of one session, for its principal (agent-server.ts): clients of the 2025-11-25 revision. */
  serverFor(principal: string): Server;
  /**
   * The MCP server of one request of the 2026-07-28 revision, for its principal (modern-server.ts); `gone` says
   * whether the endpoint was closing when a call's signal aborted (else it was the client's cancellation).
   */
  modernServerFor?(principal: string, gone: () => boolean): ModernServer;
  maxBodyBytes?: number;
  /**
   * The open sessions one principal may hold (default 32): a client that goes away without ending its session (most
   * do) leaves it open, so a new one past the bound closes the oldest with no call in flight. A session that waits on
   * a call is never closed under it (its client would wait for an answer that never comes); when every session waits
   * on one, the new session is refused (429, a JSON-RPC error saying why). Per principal: no one closes another's.
   */
  maxSessionsPerPrincipal?: number;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  principal: string;
  /** The requests of this session whose answers are still being sent (their response streams open). */
  inFlight: number;
}

const sessionHeader = 'mcp-session-id';

/**
 * `agent mcp --http`: MCP's Streamable HTTP transport (the SDK's Web-standard one, Request in, Response out) under
 * `agent serve`'s rules (docs/web.md, "Security"): every request passes serve/http/request-guard.ts first (Host, Origin,
 * JSON bodies), then `authorize`. A session (its `Mcp-Session-Id`) is its principal's: the id sent by anyone else
 * is answered as an unknown session (404), and the runs its calls start are recorded as that principal's
 * (serve/http/run-owner.ts), so another principal's `agent_result` cannot read them, whichever session asks.
 */
export function createAgentMcpHttpHandler(options: AgentMcpHttpOptions): {
  handle(request: Request): Promise<Response>;
  close(): Promise<void>;
} {
  const sessions = new Map<string, Session>();
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const maxSessions = options.maxSessionsPerPrincipal ?? 32;
  // The 2026-07-28 revision has no sessions: each request is served by a server of its own, for the principal this
  // endpoint proved (passed as authInfo). Its closed response stream is its cancellation (the revision's rule); the
  // endpoint closing is not, so that stopping `agent mcp` leaves every run going.
  let closing = false;
  const modern =
    options.modernServerFor &&
    createMcpHandler(({ authInfo }) => options.modernServerFor!(authInfo!.clientId, () => closing), {
      legacy: 'reject',
      maxRequestBodySize: maxBodyBytes,
    });

  // A Map keeps insertion order: the first of a principal's idle sessions is its oldest idle one.
  const makeRoom = (principal: string): boolean => {
    const own = [...sessions].filter(([, other]) => other.principal === principal);
    if (own.length < maxSessions) return true;
    const idle = own.find(([, other]) => other.inFlight === 0);
    if (!idle) return false;
    sessions.delete(idle[0]);
    void idle[1].server.close().catch(() => undefined);
    return true;
  };

  const route = async (request: Request): Promise<Response> => {
    const principal = await options.authorize(request);
    if (typeof principal !== 'string' || principal.trim() === '') return problem(401, 'not signed in');
    const parsedBody = request.method === 'POST' ? await readJsonBody(request, maxBodyBytes) : undefined;
    // Decided per request by the SDK's own classification: the 2026-07-28 `_meta` claim, else the 2025 sessions.
    if (modern && !(await isLegacyRequest(request, parsedBody))) {
      return modern.fetch(request, { parsedBody, authInfo: { token: '', clientId: principal, scopes: [] } });
    }
    const id = request.headers.get(sessionHeader);
    if (id !== null) {
      const session = sessions.get(id);
      // Another principal's session is no session of theirs: the same answer as an unknown one.
      if (!session || session.principal !== principal) return problem(404, 'no such MCP session: initialize a new one');
      if (!carriesRequest(parsedBody)) return session.transport.handleRequest(request, { parsedBody });
      session.inFlight += 1;
      const answered = () => void (session.inFlight -= 1);
      try {
        return whenSent(await session.transport.handleRequest(request, { parsedBody }), answered);
      } catch (error) {
        answered();
        throw error;
      }
    }
    if (request.method !== 'POST') return problem(400, 'no Mcp-Session-Id: start a session with an initialize request');
    if (!makeRoom(principal))
      return problem(
        429,
        `${principal} has ${maxSessions} MCP sessions open, each waiting on a call: end one (DELETE with its ` +
          'Mcp-Session-Id) or wait for an answer, then initialize again',
      );
    const server = options.serverFor(principal);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, server, principal, inFlight: 0 }),
      onsessionclosed: (sessionId) => void sessions.delete(sessionId),
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody });
  };

  return {
    async handle(request) {
      const refused = refusal(request, options);
      if (refused) return asJsonRpc(refused);
      try {
        return withCors(await route(request), request);
      } catch (error) {
        if (error instanceof ChatRequestError) return withCors(problem(error.status, error.message), request);
        throw error;
      }
    },
    async close() {
      closing = true;
      await modern?.close();
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.server.close().catch(() => undefined)));
    },
  };
}

/** A refusal as MCP clients read one: a JSON-RPC error object (no request id: it answers the HTTP request). */
function problem(status: number, message: string): Response {
  // -32700 is JSON-RPC's "parse error", for a body that is not JSON; -32000 a server's own refusal.
  const code = status === 400 && message.startsWith('the body is not JSON') ? -32700 : -32000;
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

/** A serve/http/request-guard.ts refusal (`{ error }`), said as a JSON-RPC error with the same status and words. */
async function asJsonRpc(refused: Response): Promise<Response> {
  if (!refused.headers.get('content-type')?.includes('application/json')) return refused;
  const { error } = (await refused.json()) as { error: string };
  return problem(refused.status, error);
}

/** Whether a POSTed body holds a request (a message with a method and an id), whose answer the client waits for. */
function carriesRequest(body: unknown): boolean {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  return messages.some((message) => typeof message === 'object' && message !== null && 'method' in message && 'id' in message);
}

/** The response, with `sent` told once its body has been sent whole or the client stopped reading it. */
function whenSent(response: Response, sent: () => void): Response {
  let told = false;
  const once = () => {
    if (!told) sent();
    told = true;
  };
  if (!response.body) {
    once();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          once();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        once();
        controller.error(error);
      }
    },
    cancel(reason) {
      once();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
