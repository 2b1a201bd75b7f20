import { attachmentOf, attachmentResponse } from './attachment-bytes';
import { readChatRequest } from './chat-request';
import { problem, RequestFlow, type TurnToFollow, type WebEndpointOptions } from './request-flow';
import { serveStatic } from './static-files';
import { followTurn } from './turn-response';
import { UiMessageTranslator } from './ui-message-chunks';
import { uiMessageStreamResponse } from './ui-message-stream';
import { toUiMessages } from './ui-messages';

/**
 * What the chat handler takes: the options both endpoints share (web/request-flow.ts: the client, task queue and
 * input of new sessions, `authorize`, `allowedOrigins`, `allowedHosts`, body limit, `onError`), and its own routes.
 */
export interface ChatHandlerOptions extends WebEndpointOptions {
  /** Where the routes hang (default `/api/chat`, useChat's default). */
  path?: string;
  /** A built page to serve at every other GET (index.html for the page's own routes), as `agent serve` does. */
  staticDirectory?: string;
}

export type ChatHandler = (request: Request) => Promise<Response>;

/**
 * The chat endpoint for useChat (AI SDK UI message stream protocol v1), a function from a Web-standard Request to a
 * Response. Routes, under `path`:
 * - `POST {path}`: `{ id, messages }` from DefaultChatTransport; the newest user message goes to session `id`
 *   (started on its first message), or the approval responses it carries are decided; the response streams the turn.
 * - `GET {path}/:id/stream`: the turn in progress from its start (useChat's resume), 204 when none runs.
 * - `GET {path}/:id`: `{ id, messages, turnInProgress }`, the conversation as UIMessages, a user message's images and
 *   files as `file` parts whose URL is the next route.
 * - `GET {path}/:id/attachments/:ref`: the bytes of an image or file that one of the session's user messages carries,
 *   with the headers that keep a browser from interpreting them (web/attachment-bytes.ts); any other ref is 404.
 * - `POST {path}/:id/stop`: interrupts the turn in progress; the session goes on. Aborting a request never does.
 * Every route first passes the checks of serve/http/request-guard.ts (Origin, Host, JSON bodies) and `authorize`.
 */
export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  const flow = new RequestFlow(options, 'chat');
  const base = (options.path ?? '/api/chat').replace(/\/+$/, '');
  const stream = (turn: TurnToFollow, request: Request) =>
    uiMessageStreamResponse(
      followTurn(new UiMessageTranslator(turn.startAfter), {
        source: turn.session,
        from: turn.from,
        signal: request.signal,
        approvalSettleMs: options.approvalSettleMs,
      }),
    );
  return (request) =>
    flow.serve(request, async () => {
      const route = routeOf(new URL(request.url).pathname, base);
      if (!route) {
        const page = options.staticDirectory ? await serveStatic(request, options.staticDirectory) : undefined;
        return page ?? problem(404, `no such route; the chat routes are under ${base}`);
      }
      const allowed = route.kind === 'conversation' || route.kind === 'resume' || route.kind === 'attachment' ? 'GET' : 'POST';
      if (request.method !== allowed) return problem(405, `${allowed} only here`, { allow: allowed });
      const principal = await flow.principal(request);
      switch (route.kind) {
        case 'chat':
          return stream(await flow.ask(principal, readChatRequest(await flow.readBody(request))), request);
        case 'conversation': {
          const session = await flow.open(principal, route.id);
          const [messages, turn] = await Promise.all([session.conversation(), session.turnInProgress()]);
          const fileUrl = (part: { ref: string }) => `${base}/${encodeURIComponent(route.id)}/attachments/${part.ref}`;
          return Response.json({
            id: route.id,
            messages: toUiMessages(messages, fileUrl),
            turnInProgress: turn !== undefined,
          });
        }
        case 'attachment': {
          // The session's owner only (404 for anyone else), and a ref its own messages carry (404 for any other).
          const session = await flow.open(principal, route.id);
          const part = attachmentOf(await session.conversation(), route.ref);
          if (!part) return problem(404, 'no such attachment in this chat');
          return attachmentResponse(part, flow.attachments, request);
        }
        case 'resume': {
          const session = await flow.open(principal, route.id);
          const turn = await session.turnInProgress();
          if (!turn) return new Response(null, { status: 204 });
          return stream({ session, from: turn.offset, startAfter: { kind: 'turn_start' } }, request);
        }
        case 'stop':
          await flow.stop(principal, route.id);
          return Response.json({ id: route.id, stopped: true });
      }
    });
}

type Route =
  | { kind: 'chat' }
  | { kind: 'conversation'; id: string }
  | { kind: 'resume'; id: string }
  | { kind: 'stop'; id: string }
  | { kind: 'attachment'; id: string; ref: string };

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
  if (rest.length === 3 && rest[1] === 'attachments') return { kind: 'attachment', id, ref: rest[2] };
  return undefined;
}
