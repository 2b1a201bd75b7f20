import type { ApprovalDecision, PendingApproval } from '../core/result';
import { steeringPreviewChars } from '../core/stream-events';
import { assertChatId } from './chat-request';
import { ChatRequestError, ChatSessions, type ChatSession, type ChatSessionsOptions } from './chat-sessions';
import { refusal, withCors, type RequestGuardOptions } from '../serve/http/request-guard';
import { defaultMaxBodyBytes, readJsonBody } from '../serve/http/request-body';
import { AttachmentRefusedError, storeAttachments, type AttachmentInput } from '../client/attachment-input';
import type { AttachmentPart } from '../core/attachments';
import type { StartAfter } from './turn-response';
import type { AttachmentStore } from '../storage/attachment-store';
import { agentStores } from '../storage/stores';

/**
 * The one request flow behind both web endpoints (useChat's, web/chat-handler.ts, and AG-UI's, web/ag-ui-handler.ts):
 * who may ask (Origin, Host, JSON, a principal), reading the body, what a message or a decision does to the session,
 * and how a failure is answered. Each protocol only reads its own request shape into an `Ask` and translates the
 * turn that follows (web/turn-response.ts): it never decides anything about sessions itself.
 */
export interface WebEndpointOptions extends ChatSessionsOptions, RequestGuardOptions {
  /**
   * The request's principal (a user id from your session cookie or token), or undefined: 401. An empty string is no
   * principal (401 too): an empty header must not become a user. A session belongs to the principal that started
   * it; to anyone else it does not exist (404).
   */
  authorize(request: Request): string | undefined | Promise<string | undefined>;
  /** The largest body accepted (413 above it); 1 MiB by default. */
  maxBodyBytes?: number;
  /** How long a response waits, after an approval request, for the others of the same tool round (default 300 ms). */
  approvalSettleMs?: number;
  /**
   * Told of an unexpected failure (Temporal unreachable, a bug): the client gets a bare 500, since the error's words
   * (addresses, internals) are for the operator. `console.error` by default.
   */
  onError?(error: unknown, request: Request): void;
  /**
   * Where a message's images and files are stored, and read back for the page (web/attachment-bytes.ts): the store the
   * workers share (storage/stores.ts, from the environment) unless given.
   */
  attachments?: AttachmentStore;
}

/** What a request asks of a session, whichever protocol it came in. */
export type Ask =
  /** `steer`: the message steers the turn in progress (docs/approvals.md, "Steering a turn") instead of queuing behind it. */
  | { kind: 'message'; id: string; text: string; steer?: boolean; files?: AttachmentInput[] }
  | { kind: 'approvals'; id: string; decisions: Array<{ call: string; decision: ApprovalDecision }> };

/** The turn a response follows: the session, where to read from, and where the response's own events begin. */
export interface TurnToFollow {
  session: ChatSession;
  from: number;
  startAfter: StartAfter;
}

export class RequestFlow {
  readonly sessions: ChatSessions;
  private readonly maxBodyBytes: number;

  private readonly noun: 'chat' | 'thread';

  /** `protocol` names the handler in its words to the client, and what it calls a session (a chat, a thread). */
  constructor(
    private readonly options: WebEndpointOptions,
    private readonly protocol: 'chat' | 'AG-UI',
  ) {
    this.noun = protocol === 'chat' ? 'chat' : 'thread';
    this.sessions = new ChatSessions(options);
    this.maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  }

  /** The attachment store, built from the environment on first use (a handler that never sees a file never builds it). */
  get attachments(): AttachmentStore {
    this.store ??= this.options.attachments ?? agentStores().attachments;
    return this.store;
  }
  private store: AttachmentStore | undefined;

  /**
   * Every request: refused before anything reads it when a browser may not make it (request-guard.ts), then the
   * route; a refusal of ours is answered with its status and words, anything else is the operator's (onError, 500).
   */
  async serve(request: Request, route: () => Promise<Response>): Promise<Response> {
    const refused = refusal(request, this.options);
    if (refused) return refused;
    try {
      return withCors(await route(), request);
    } catch (error) {
      if (error instanceof ChatRequestError) return withCors(problem(error.status, error.message), request);
      (this.options.onError ?? logFailure)(error, request);
      return withCors(problem(500, `the ${this.protocol} handler failed; the server logged why`), request);
    }
  }

  /** The request's principal; none, or an empty one, is not signed in (401). */
  async principal(request: Request): Promise<string> {
    const principal = await this.options.authorize(request);
    if (typeof principal !== 'string' || principal.trim() === '') throw new ChatRequestError(401, 'not signed in');
    return principal;
  }

  readBody(request: Request): Promise<unknown> {
    return readJsonBody(request, this.maxBodyBytes);
  }

  /** Session `id` of `principal`: anyone else's, or none, is the same 404. */
  async open(principal: string, id: string): Promise<ChatSession> {
    const session = await this.sessions.open(principal, this.assertId(id));
    if (!session) throw new ChatRequestError(404, `no such ${this.noun}`);
    return session;
  }

  /** Ends the turn in progress, as `agent interrupt` does; the session goes on. */
  async stop(principal: string, id: string): Promise<void> {
    const session = await this.open(principal, id);
    if (!(await session.turnInProgress())) throw new ChatRequestError(409, 'no turn is in progress');
    await session.interrupt();
  }

  /** Hands the session a message or decisions, and says which turn the response follows. */
  ask(principal: string, ask: Ask): Promise<TurnToFollow> {
    return ask.kind === 'message'
      ? this.message(principal, ask.id, ask.text, ask.steer === true, ask.files)
      : this.decide(principal, ask.id, ask.decisions);
  }

  private async message(
    principal: string,
    id: string,
    text: string,
    steer: boolean,
    files: AttachmentInput[] = [],
  ): Promise<TurnToFollow> {
    const existing = await this.sessions.open(principal, this.assertId(id));
    // Checked and stored before anything reaches the session: a refused file sends nothing (422).
    const attachments = files.length > 0 ? await storedFiles(files, this.attachments) : [];
    if (!existing) {
      const started = await this.sessions.start(principal, id, text, attachments);
      if (!started) throw new ChatRequestError(404, `no such ${this.noun}`);
      return { session: started.session, from: started.from, startAfter: { kind: 'turn_start' } };
    }
    if (!(await this.sessions.isOpen(id))) throw new ChatRequestError(409, `this ${this.noun} has ended; start a new one`);
    const waiting = await existing.pendingApprovals();
    if (waiting.length > 0) return this.declineWaiting(existing, text, waiting, attachments);
    // A steering message's response is the turn that takes it, from where it took it: the turn in progress (read
    // before sending, so the response cannot miss the moment), or the next turn when this one ends first.
    const running = steer ? await existing.turnInProgress() : undefined;
    if (running) {
      await existing.send(text, { steer: true, attachments });
      return { session: existing, from: running.offset, startAfter: { kind: 'steered', turn: running.turn } };
    }
    // Where the next turn can start, read before sending: the turn in progress (if any) ends before it, and not in
    // this response. A steering message sent with no turn in progress is an ordinary message.
    const from = await existing.nextOffset();
    await existing.send(text, { steer, attachments });
    return { session: existing, from, startAfter: { kind: 'turn_start' } };
  }

  /**
   * A message typed while calls wait for a decision answers them, as a coding agent's prompt does: each waiting call is
   * denied with the message as its reason, and the message joins the turn as a steering message, right after the
   * denials' results, so the model reads both in its next request and answers the message in the same turn. (Queued
   * instead, it would wait as long as the person does, an hour by default; refused, it becomes the client's last
   * message, and useChat's Approve afterwards sends nothing.) The message is sent first: the turn takes steering only
   * between iterations, which cannot begin while the calls wait, so the denials cannot reach the model without it. A
   * call decided meanwhile elsewhere keeps that decision; nothing here approves anything.
   */
  private async declineWaiting(
    session: ChatSession,
    text: string,
    waiting: PendingApproval[],
    attachments: AttachmentPart[],
  ): Promise<TurnToFollow> {
    const running = await session.turnInProgress();
    const from = running?.offset ?? (await session.nextOffset());
    await session.send(text, { steer: running !== undefined, attachments });
    const quoted = text.length > steeringPreviewChars ? `${text.slice(0, steeringPreviewChars)}…` : text;
    const decision: ApprovalDecision = { approved: false, reason: `the person declined and said "${quoted}"` };
    for (const approval of waiting) {
      await session.decide(approval.id, decision).catch((error: unknown) => {
        // Decided meanwhile (another tab, the CLI, the timeout): that decision stands.
        if (!(error instanceof ChatRequestError && error.status === 409)) throw error;
      });
    }
    return running
      ? { session, from, startAfter: { kind: 'steered', turn: running.turn } }
      : { session, from, startAfter: { kind: 'turn_start' } };
  }

  /**
   * Decides the calls that wait; answers for calls that no longer wait (decided already, in another tab, or by the
   * timeout) are left out, as a client that sends its whole message again would expect. None of them waits: 409.
   */
  private async decide(
    principal: string,
    id: string,
    decisions: Array<{ call: string; decision: ApprovalDecision }>,
  ): Promise<TurnToFollow> {
    const session = await this.open(principal, id);
    const unique = distinctDecisions(decisions);
    const pending = new Set((await session.pendingApprovals()).map((approval) => approval.id));
    const answered = unique.filter(({ call }) => pending.has(call));
    if (answered.length === 0) {
      throw new ChatRequestError(409, 'no approval waits for these answers (decided already, or never asked)');
    }
    // Where the turn began, read before deciding: once decided, the turn may end before a later read.
    const turn = await session.turnInProgress();
    for (const { call, decision } of answered) await session.decide(call, decision);
    if (!turn) throw new ChatRequestError(409, 'no turn is in progress');
    return { session, from: turn.offset, startAfter: { kind: 'approvals', calls: answered.map(({ call }) => call) } };
  }

  private assertId(id: string): string {
    return assertChatId(id, this.noun === 'thread' ? 'the threadId' : 'the chat id');
  }
}

/** One decision per call: the same answer twice is one answer; two different answers to one call are refused (400). */
function distinctDecisions(
  decisions: Array<{ call: string; decision: ApprovalDecision }>,
): Array<{ call: string; decision: ApprovalDecision }> {
  const byCall = new Map<string, { call: string; decision: ApprovalDecision }>();
  for (const entry of decisions) {
    const earlier = byCall.get(entry.call);
    if (earlier && earlier.decision.approved !== entry.decision.approved) {
      throw new ChatRequestError(400, `${entry.call} is both approved and denied in one request`);
    }
    if (!earlier) byCall.set(entry.call, entry);
  }
  return [...byCall.values()];
}

export function problem(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: message }, { status, headers });
}

function logFailure(error: unknown, request: Request): void {
  console.error(`${request.method} ${new URL(request.url).pathname} failed:`, error);
}

/** A message's files, checked and stored (client/attachment-input.ts); one refused is the request's 422. */
async function storedFiles(files: AttachmentInput[], store: AttachmentStore): Promise<AttachmentPart[]> {
  try {
    return await storeAttachments(files, store);
  } catch (error) {
    if (error instanceof AttachmentRefusedError) throw new ChatRequestError(422, error.message);
    throw error;
  }
}
