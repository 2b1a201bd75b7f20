import type { Client } from '@temporalio/client';
import type { AgentInput } from '../core/resolve-input';
import { assertChatId, readChatRequest } from './chat-request';
import { ChatRequestError, ChatSessions, type ChatSession } from './chat-sessions';
import { serveStatic } from './static-files';
import { defaultMaxBodyBytes, readJsonBody } from './request-body';
import { turnChunks, uiMessageStreamResponse } from './ui-message-stream';
import { toUiMessages } from './ui-messages';

export interface ChatHandlerOptions {
  /** A Temporal client with the agent data converter (agentDataConverter()), as workers use. */
  client: Client;
  /** The task queue the agent workers poll. */
  taskQueue: string;
  /** What a new session runs: agent input without a prompt (agent or model, tools, workspace, approvals...). */
  input: Omit<AgentInput, 'prompt'>;
  /**
   * The request's principal (a user id from your session cookie or token), or undefined: 401. A session belongs to
   * the principal that started it; to anyone else it does not exist (404).
   */
  authorize(request: Request): string | undefined | Promise<string | undefined>;
  /** Where the routes hang (default `/api/chat`, useChat's default). */
  path?: string;
  /** The largest body accepted (413 above it); 1 MiB by default. */
  maxBodyBytes?: number;
  /** Prefixed to chat ids to make workflow ids (default `chat-`). */
  workflowIdPrefix?: string;
  /** How long a response waits, after an approval request, for the others of the same tool round (default 300 ms). */
  approvalSettleMs?: number;
  /** A built page to serve at every other GET (index.html for the page's own routes), as `agent serve` does. */
  staticDirectory?: string;
  /**
   * Told of an unexpected failure (Temporal unreachable, a bug): the browser gets a bare 500, since the error's words
   * (addresses, internals) are for the operator. `console.error` by default.
   */
  onError?(error: unknown, request: Request): void;
}

export type ChatHandler = (request: Request) => Promise<Response>;

/**
 * The chat endpoint for useChat (AI SDK UI message stream protocol v1), a function from a Web-standard Request to a
 * Response. Routes, under `path`:
 * - `POST {path}`: `{ id, messages }` from DefaultChatTransport; the newest user message goes to session `id`
 *   (started on its first message), or the approval responses it carries are decided; the response streams the turn.
 * - `GET {path}/:id/stream`: the turn in progress from its start (useChat's resume), 204 when none runs.
 * - `GET {path}/:id`: `{ id, messages, turnInProgress }`, the conversation as UIMessages.
 * - `POST {path}/:id/stop`: interrupts the turn in progress; the session goes on. Aborting a request never does.
 */
export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  const sessions = new ChatSessions(options);
  const base = (options.path ?? '/api/chat').replace(/\/+$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  return async (request) => {
    try {
      const route = routeOf(new URL(request.url).pathname, base);
      if (!route) {
        const page = options.staticDirectory ? await serveStatic(request, options.staticDirectory) : undefined;
        return page ?? problem(404, `no such route; the chat routes are under ${base}`);
      }
      const allowed = route.kind === 'conversation' || route.kind === 'resume' ? 'GET' : 'POST';
      if (request.method !== allowed) return problem(405, `${allowed} only here`, { allow: allowed });
      const principal = await options.authorize(request);
      if (principal === undefined) return problem(401, 'not signed in');
      if (route.kind === 'chat') return await post(request, principal);
      const session = await sessions.open(principal, assertChatId(route.id));
      if (!session) return problem(404, 'no such chat');
      if (route.kind === 'conversation') {
        const [messages, turn] = await Promise.all([session.conversation(), session.turnInProgress()]);
        return Response.json({ id: route.id, messages: toUiMessages(messages), turnInProgress: turn !== undefined });
      }
      if (route.kind === 'resume') {
        const turn = await session.turnInProgress();
        if (!turn) return new Response(null, { status: 204 });
        return stream(session, turn.offset, { kind: 'turn_start' }, request);
      }
      if (!(await session.turnInProgress())) return problem(409, 'no turn is in progress');
      await session.interrupt();
      return Response.json({ id: route.id, stopped: true });
    } catch (error) {
      if (error instanceof ChatRequestError) return problem(error.status, error.message);
      (options.onError ?? logFailure)(error, request);
      return problem(500, 'the chat handler failed; the server logged why');
    }
  };

  async function post(request: Request, principal: string): Promise<Response> {
    const ask = readChatRequest(await readJsonBody(request, maxBodyBytes));
    const existing = await sessions.open(principal, ask.id);
    if (ask.kind === 'approvals') {
      if (!existing) return problem(404, 'no such chat');
      const pending = new Set((await existing.pendingApprovals()).map((approval) => approval.id));
      const answered = ask.decisions.filter(({ call }) => pending.has(call));
      if (answered.length === 0) return problem(409, 'no approval asked for waits for these answers (decided already?)');
      // Where the turn began, read before deciding: once decided, the turn may end before a later read.
      const turn = await existing.turnInProgress();
      for (const { call, decision } of answered) await existing.decide(call, decision);
      if (!turn) return problem(409, 'no turn is in progress');
      const calls = answered.map(({ call }) => call);
      return stream(existing, turn.offset, { kind: 'approvals', calls }, request);
    }
    if (existing) {
      if (!(await sessions.isOpen(ask.id))) return problem(409, 'this chat has ended; start a new one');
      const from = await existing.nextOffset();
      await existing.send(ask.text);
      return stream(existing, from, { kind: 'turn_start' }, request);
    }
    const started = await sessions.start(principal, ask.id, ask.text);
    if (!started) return problem(404, 'no such chat');
    return stream(started.session, started.from, { kind: 'turn_start' }, request);
  }

  function stream(
    session: ChatSession,
    from: number,
    startAfter: { kind: 'turn_start' } | { kind: 'approvals'; calls: string[] },
    request: Request,
  ): Response {
    return uiMessageStreamResponse(
      turnChunks({ source: session, from, startAfter, signal: request.signal, approvalSettleMs: options.approvalSettleMs }),
    );
  }
}

type Route =
  { kind: 'chat' } | { kind: 'conversation'; id: string } | { kind: 'resume'; id: string } | { kind: 'stop'; id: string };

function routeOf(pathname: string, base: string): Route | undefined {
  const path = pathname.replace(/\/+$/, '');
  if (path === base) return { kind: 'chat' };
  if (!path.startsWith(`${base}/`)) return undefined;
  const rest = path.slice(base.length + 1).split('/');
  let id: string;
  try {
    id = decodeURIComponent(rest[0]);
  } catch {
    return undefined;
  }
  if (rest.length === 1) return { kind: 'conversation', id };
  if (rest.length === 2 && rest[1] === 'stream') return { kind: 'resume', id };
  if (rest.length === 2 && rest[1] === 'stop') return { kind: 'stop', id };
  return undefined;
}

function problem(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: message }, { status, headers });
}

function logFailure(error: unknown, request: Request): void {
  console.error(`chat handler: ${request.method} ${new URL(request.url).pathname} failed:`, error);
}
