import { AgentCard, AGENT_CARD_PATH, A2A_VERSION_HEADER, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';
import { VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import type { Client } from '@temporalio/client';
import type { AgentRegistry } from '../agents/registry';
import type { AgentInput } from '../core/resolve-input';
import { ChatRequestError } from '../serve/http/request-error';
import { defaultMaxBodyBytes, readJsonBody } from '../serve/http/request-body';
import { refusal, withCors, type RequestGuardOptions } from '../serve/http/request-guard';
import { agentCard, jsonRpcBinding, type CardSecurity } from './agent-card';
import { requestSignalKey, RunTaskHandler } from './task-handler';

export interface A2AHandlerOptions extends RequestGuardOptions {
  client: Client;
  taskQueue: string;
  /** The agents' definitions: each card's description and skills come from its agent's. */
  registry: AgentRegistry;
  /** The agents served, by name: each at `{path}/{name}`, its card at `{path}/{name}/.well-known/agent-card.json`. */
  agents: readonly string[];
  /** What a task of agent `name` runs, but its prompt (the message's text): model, workspace, approvals, limits. */
  inputFor(name: string): Omit<AgentInput, 'prompt'>;
  /**
   * The request's principal, as the chat handler's: undefined or empty is nobody (401). A task belongs to the
   * principal that started it; to anyone else it does not exist.
   */
  authorize(request: Request): string | undefined | Promise<string | undefined>;
  /** How callers prove who they are, as the cards say it (A2A security schemes); none by default. */
  securitySchemes?: CardSecurity;
  /** Where the agents hang (default `/a2a`). */
  path?: string;
  /** An agent whose card is also at `/.well-known/agent-card.json`, for a caller that knows only this server's address. */
  rootAgent?: string;
  /** The address callers reach this server at, for the cards' URLs (default: the request's own origin). */
  publicUrl?: string;
  /** The largest body accepted (413 above it); 1 MiB by default. */
  maxBodyBytes?: number;
  /** Told of an unexpected failure; the caller gets a bare JSON-RPC internal error. `console.error` by default. */
  onError?(error: unknown, request: Request): void;
}

export type A2AHandler = (request: Request) => Promise<Response>;

/**
 * The A2A 1.0 server over registered agents, a function from a Web-standard Request to a Response (mount it like the
 * chat handler). Routes, for each served agent: `GET {path}/{agent}/.well-known/agent-card.json` (its card; also at
 * `/.well-known/agent-card.json` for `rootAgent`) and `POST {path}/{agent}`, the JSON-RPC binding, handled by the
 * SDK's JsonRpcTransportHandler over RunTaskHandler (task-handler.ts: a task is a run), streaming methods as SSE.
 * Every request passes serve/http/request-guard.ts first (Host, Origin, JSON bodies), then `authorize`; the card is
 * public, as A2A's discovery wants, and says nothing a caller could use but the agent's description and tools.
 */
export function createA2AHandler(options: A2AHandlerOptions): A2AHandler {
  const base = (options.path ?? '/a2a').replace(/\/+$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  if (options.rootAgent !== undefined && !options.agents.includes(options.rootAgent)) {
    throw new Error(`rootAgent "${options.rootAgent}" is not among the agents served (${options.agents.join(', ')})`);
  }
  const cardOf = (agent: string, origin: string) =>
    agentCard(
      options.registry,
      agent,
      `${options.publicUrl?.replace(/\/+$/, '') ?? origin}${base}/${agent}`,
      options.securitySchemes,
    );

  const route = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const target = routeOf(url.pathname, base, options);
    if (!target) return Response.json({ error: `no such route; the agents are under ${base}/{agent}` }, { status: 404 });
    if (target.kind === 'card') {
      if (request.method !== 'GET') return Response.json({ error: 'GET only here' }, { status: 405, headers: { allow: 'GET' } });
      return Response.json(cardOf(target.agent, url.origin), { headers: { 'cache-control': 'no-cache' } });
    }
    if (request.method !== 'POST') return Response.json({ error: 'POST only here' }, { status: 405, headers: { allow: 'POST' } });
    const principal = await options.authorize(request);
    if (typeof principal !== 'string' || principal.trim() === '') return rpcError(401, -32000, 'not signed in');
    const body = await readJsonBody(request, maxBodyBytes);
    const card = AgentCard.fromJSON(cardOf(target.agent, url.origin));
    const context = new ServerCallContext({
      user: { isAuthenticated: true, userName: principal },
      requestedVersion: request.headers.get(A2A_VERSION_HEADER) ?? '0.3',
      state: new Map([[requestSignalKey, request.signal]]),
    });
    try {
      validateVersion(context.requestedVersion, card, jsonRpcBinding);
    } catch (error) {
      if (!(error instanceof VersionNotSupportedError)) throw error;
      return Response.json({ jsonrpc: '2.0', id: idOf(body), error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    }
    const handler = new RunTaskHandler({
      client: options.client,
      taskQueue: options.taskQueue,
      input: options.inputFor(target.agent),
      card,
    });
    const answer = await new JsonRpcTransportHandler(guarded(handler, (error) => report(error, request))).handle(
      body as Record<string, unknown>,
      context,
    );
    if (!(Symbol.asyncIterator in answer)) return Response.json(answer);
    return sseResponse(answer, idOf(body), request.signal, (error) => report(error, request));
  };

  const report = (error: unknown, request: Request) =>
    (options.onError ?? ((failure) => console.error(`A2A ${new URL(request.url).pathname} failed:`, failure)))(error, request);

  return async (request) => {
    const refused = refusal(request, options);
    if (refused) return refused;
    try {
      return withCors(await route(request), request);
    } catch (error) {
      if (error instanceof ChatRequestError) return withCors(rpcError(error.status, -32000, error.message), request);
      report(error, request);
      return withCors(rpcError(500, -32603, 'the A2A handler failed; the server logged why'), request);
    }
  };
}

/** Where A2A's discovery looks, under an agent's address (the SDK's constant has no leading slash). */
const cardPath = `/${AGENT_CARD_PATH.replace(/^\/+/, '')}`;

type Route = { kind: 'card'; agent: string } | { kind: 'rpc'; agent: string };

function routeOf(pathname: string, base: string, options: A2AHandlerOptions): Route | undefined {
  const path = pathname.replace(/\/+$/, '');
  if (options.rootAgent !== undefined && path === cardPath) return { kind: 'card', agent: options.rootAgent };
  if (!path.startsWith(`${base}/`)) return undefined;
  const [name, ...rest] = path.slice(base.length + 1).split('/');
  const agent = options.agents.find((served) => served === name);
  if (!agent) return undefined;
  if (rest.length === 0) return { kind: 'rpc', agent };
  if (`/${rest.join('/')}` === cardPath) return { kind: 'card', agent };
  return undefined;
}

/**
 * The handler with every failure that is not the protocol's own (an A2AError: task not found, not cancelable...) told
 * to the operator and answered as a bare internal error: the SDK would send any error's message, and Temporal's name
 * addresses and internals.
 */
function guarded(handler: RunTaskHandler, report: (error: unknown) => void): RunTaskHandler {
  const hide = (error: unknown): never => {
    if (error instanceof Error && 'reason' in error) throw error;
    report(error);
    throw new Error('the A2A handler failed; the server logged why');
  };
  return new Proxy(handler, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = (value as (...callArgs: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          return hide(error);
        }
        if (result && typeof result === 'object' && Symbol.asyncIterator in result) {
          return (async function* () {
            try {
              yield* result as AsyncGenerator<unknown>;
            } catch (error) {
              hide(error);
            }
          })();
        }
        if (result instanceof Promise) return result.catch(hide);
        return result;
      };
    },
  });
}

/**
 * A streaming method's answers as SSE, in the SDK's own framing (formatSSEEvent). The first answer is awaited before
 * the headers: a request refused at once (task not found) is a plain JSON-RPC error, as the SDK's express adapter
 * answers it. The client going away returns the generator, which stops following the run; the run goes on.
 */
async function sseResponse(
  answers: AsyncGenerator<unknown>,
  id: unknown,
  signal: AbortSignal,
  report: (error: unknown) => void,
): Promise<Response> {
  const first = await answers.next();
  const value = first.value as { error?: unknown } | undefined;
  if (!first.done && value?.error !== undefined) {
    await answers.return(undefined);
    return Response.json(value);
  }
  const encoder = new TextEncoder();
  const stop = () => void answers.return(undefined).catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (!first.done) controller.enqueue(encoder.encode(formatSSEEvent(first.value)));
      else controller.close();
    },
    async pull(controller) {
      try {
        const next = await answers.next();
        if (next.done) {
          signal.removeEventListener('abort', stop);
          controller.close();
        } else controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (error) {
        report(error);
        controller.enqueue(
          encoder.encode(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: { code: -32603, message: 'the stream failed' } })),
        );
        controller.close();
      }
    },
    cancel: stop,
  });
  return new Response(first.done ? null : body, { headers: SSE_HEADERS });
}

function idOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null && 'id' in body ? (body as { id: unknown }).id : null;
}

/** A refusal as A2A clients read one: a JSON-RPC error object. */
function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}
