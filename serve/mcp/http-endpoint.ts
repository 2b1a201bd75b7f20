import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ChatRequestError } from '../http/request-error';
import { defaultMaxBodyBytes, readJsonBody } from '../http/request-body';
import { refusal, withCors, type RequestGuardOptions } from '../http/request-guard';

export interface AgentMcpHttpOptions extends RequestGuardOptions {
  /** The request's principal, as `agent serve`'s authorize: undefined or empty is nobody (401). */
  authorize(request: Request): string | undefined | Promise<string | undefined>;
  /** The MCP server of one session, for its principal (agent-server.ts). */
  serverFor(principal: string): Server;
  maxBodyBytes?: number;
  /**
   * The open sessions one principal may hold (default 32): a client that goes away without ending its session (most
   * do) leaves it open, so the oldest is closed when a new one would pass the bound. A call it was waiting on stops
   * waiting, and its run goes on (agent_result reads it). Bounded per principal, so no one closes another's sessions.
   */
  maxSessionsPerPrincipal?: number;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  principal: string;
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

  // A Map keeps insertion order: the first of a principal's sessions is its oldest.
  const admit = (sessionId: string, session: Session) => {
    const own = [...sessions].filter(([, other]) => other.principal === session.principal);
    for (const [id, oldest] of own.slice(0, Math.max(0, own.length + 1 - maxSessions))) {
      sessions.delete(id);
      void oldest.server.close().catch(() => undefined);
    }
    sessions.set(sessionId, session);
  };

  const route = async (request: Request): Promise<Response> => {
    const principal = await options.authorize(request);
    if (typeof principal !== 'string' || principal.trim() === '') return problem(401, 'not signed in');
    const parsedBody = request.method === 'POST' ? await readJsonBody(request, maxBodyBytes) : undefined;
    const id = request.headers.get(sessionHeader);
    if (id !== null) {
      const session = sessions.get(id);
      // Another principal's session is no session of theirs: the same answer as an unknown one.
      if (!session || session.principal !== principal) return problem(404, 'no such MCP session: initialize a new one');
      return session.transport.handleRequest(request, { parsedBody });
    }
    if (request.method !== 'POST') return problem(400, 'no Mcp-Session-Id: start a session with an initialize request');
    const server = options.serverFor(principal);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => admit(sessionId, { transport, server, principal }),
      onsessionclosed: (sessionId) => void sessions.delete(sessionId),
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody });
  };

  return {
    async handle(request) {
      const refused = refusal(request, options);
      if (refused) return refused;
      try {
        return withCors(await route(request), request);
      } catch (error) {
        if (error instanceof ChatRequestError) return withCors(problem(error.status, error.message), request);
        throw error;
      }
    },
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.server.close().catch(() => undefined)));
    },
  };
}

function problem(status: number, message: string): Response {
  return Response.json({ error: message }, { status });
}
