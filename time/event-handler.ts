import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { readJsonBody } from '../serve/http/request-body';
import { ChatRequestError } from '../serve/http/request-error';
import { refusal, withCors, type RequestGuardOptions } from '../serve/http/request-guard';
import { isOwnedBy } from '../serve/http/run-owner';
import { eventNamePattern, maxEventPayloadChars } from './names';
import { EventRefusedError, sendEvent } from './send-event';

/** What the event endpoint takes: who may send (a webhook's token, or your principals), and the web guard's options. */
export interface EventHandlerOptions extends RequestGuardOptions {
  client: Client;
  /** Where the route hangs (default `/api/events`): `POST {path}/{workflowId}/{event}`. */
  path?: string;
  /**
   * For webhooks: a secret of yours from which each run's token is made (eventWebhookToken). A request that carries
   * `Authorization: Bearer <that run's token>` may send that run events, and no other run.
   */
  webhookSecret?: string;
  /**
   * The request's principal (as the web chat's `authorize`): it may send events to the runs it owns (the owner in the
   * run's memo, serve/http/run-owner.ts). Anyone else's run, or none, is the same 404.
   */
  authorize?(request: Request): string | undefined | Promise<string | undefined>;
}

/** The token a webhook presents for one run: an HMAC of the run's workflow id under your secret. */
export function eventWebhookToken(secret: string, workflowId: string): string {
  return createHmac('sha256', secret).update(`durable-agent event\0${workflowId}`).digest('base64url');
}

/**
 * An endpoint for events from outside (webhooks, other systems), a function from a Web-standard Request to a
 * Response: `POST {path}/{workflowId}/{event}` with the payload as its JSON body delivers the event to the run's
 * `wait_for_event` call on that name (docs/time.md). It passes the web endpoints' guard first (Host, Origin, JSON:
 * serve/http/request-guard.ts), then a webhook token for that run or a principal that owns it. Answers 200
 * `{ workflowId, event, callId }`; 409 with the run's reason when nothing there waits for that event; 404 for a run
 * that is not the sender's. An `Idempotency-Key` header makes a retried delivery count once.
 */
export function createEventHandler(options: EventHandlerOptions): (request: Request) => Promise<Response> {
  if (!options.webhookSecret && !options.authorize)
    throw new TypeError('createEventHandler needs a webhookSecret, an authorize function, or both: an open endpoint is none');
  const base = (options.path ?? '/api/events').replace(/\/+$/, '');
  return async (request) => {
    const refused = refusal(request, options);
    if (refused) return refused;
    const answer = (status: number, body: Record<string, unknown>) => withCors(Response.json(body, { status }), request);
    const route = routeOf(new URL(request.url).pathname, base);
    if (!route) return answer(404, { error: `no such route; events are posted to ${base}/{workflowId}/{event}` });
    if (request.method !== 'POST') return answer(405, { error: 'POST only here' });
    if (!eventNamePattern.test(route.event))
      return answer(400, { error: 'an event name is letters, digits and . _ : - (at most 100)' });
    try {
      const sender = await senderOf(request, route.workflowId, options);
      if (sender === 'unknown') return answer(401, { error: 'not signed in, and no webhook token for this run' });
      if (sender === 'not the owner') return answer(404, { error: 'no such run' });
      const payload = await readJsonBody(request, maxEventPayloadChars * 4);
      const id = request.headers.get('idempotency-key') ?? undefined;
      const delivered = await sendEvent(options.client.workflow.getHandle(route.workflowId), route.event, payload, {
        ...(id && { id }),
      });
      return answer(200, { workflowId: route.workflowId, ...delivered });
    } catch (error) {
      if (error instanceof EventRefusedError) return answer(409, { error: error.message });
      if (error instanceof ChatRequestError) return answer(error.status, { error: error.message });
      console.error(error);
      return answer(500, { error: 'the event handler failed; the server logged why' });
    }
  };
}

/** Who sends: a webhook with this run's token, or a principal that owns the run; else unknown, or not the owner. */
async function senderOf(
  request: Request,
  workflowId: string,
  options: EventHandlerOptions,
): Promise<'webhook' | 'owner' | 'unknown' | 'not the owner'> {
  const bearer = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  if (bearer && options.webhookSecret) {
    const expected = Buffer.from(eventWebhookToken(options.webhookSecret, workflowId));
    const given = Buffer.from(bearer);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return 'webhook';
  }
  const principal = options.authorize ? await options.authorize(request) : undefined;
  if (typeof principal !== 'string' || principal.trim() === '') return bearer ? 'not the owner' : 'unknown';
  return (await isOwnedBy(options.client, workflowId, principal)) ? 'owner' : 'not the owner';
}

function routeOf(pathname: string, base: string): { workflowId: string; event: string } | undefined {
  if (!pathname.startsWith(`${base}/`)) return undefined;
  const parts = pathname.slice(base.length + 1).split('/');
  if (parts.length !== 2) return undefined;
  try {
    return { workflowId: decodeURIComponent(parts[0]), event: decodeURIComponent(parts[1]) };
  } catch {
    return undefined;
  }
}
