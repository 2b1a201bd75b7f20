import type { ApprovalDecision } from '../core/result';
import { ChatSessions, type ChatSessionsOptions } from './chat-sessions';
import { AgUiInputError, readRunAgentInput } from './ag-ui-input';
import { agUiEventStreamResponse, agUiRunEvents, type AgUiTurnFollow } from './ag-ui-run';

/**
 * The AG-UI endpoint: POST a RunAgentInput, read the run as server-sent AG-UI events. It owns no sessions: it uses
 * the chat handler's (ChatSessions: who owns which, starting, sending, deciding, following), so a thread is the same
 * session useChat reaches by the same id, and the two endpoints are two adapters over one follow of its stream.
 */
export interface AgUiSession extends AgUiTurnFollow {
  /** The offset the session's next stream event will get: a message sent now has its turn start there or later. */
  nextOffset(): Promise<number>;
  /** The turn in progress and where it began on the stream, if one runs. */
  turnInProgress(): Promise<{ offset: number } | undefined>;
  /** Hands the session a message (queued behind a turn in progress); resolves once the session has it. */
  send(text: string): Promise<void>;
  decide(call: string, decision: ApprovalDecision): Promise<void>;
}

/** What the endpoint needs of the sessions: ChatSessions (web/chat-sessions.ts) is one. */
export interface AgUiSessionAccess {
  /** Session `id` if it exists and is `principal`'s; undefined otherwise (the endpoint answers 404 for both). */
  open(principal: string, id: string): Promise<AgUiSession | undefined>;
  /** Whether the session's run still takes messages. */
  isOpen(id: string): Promise<boolean>;
  /**
   * Starts session `id` for `principal` with its first message; its first turn starts at `from`. Undefined when the
   * id is taken by another principal's session (404, as for any session that is not theirs).
   */
  start(principal: string, id: string, text: string): Promise<{ session: AgUiSession; from: number } | undefined>;
}

export interface AgUiHandlerOptions extends ChatSessionsOptions {
  /** The principal of the request, or undefined (401): the same callback the chat handler takes. */
  authorize(request: Request): string | undefined | Promise<string | undefined>;
  /** The largest body accepted (413 above it); 1 MiB by default, as the chat handler. */
  maxBodyBytes?: number;
  /** How long a run waits, after an approval request, for the others of the same tool round (default 300 ms). */
  approvalSettleMs?: number;
}

const defaultMaxBodyBytes = 1024 * 1024;

/**
 * A function from a Web-standard Request to a Response, as the chat handler: mount it at a path of your own (for
 * `agent serve`, `/api/ag-ui`). Give it the chat handler's options so that both reach the same sessions.
 */
export function createAgUiHandler(options: AgUiHandlerOptions): (request: Request) => Promise<Response> {
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  // The chat handler's sessions, typed by what this endpoint uses of them.
  const sessions: AgUiSessionAccess = new ChatSessions(options);
  return async (request) => {
    if (request.method !== 'POST') return problem(405, 'POST a RunAgentInput', { allow: 'POST' });
    const principal = await options.authorize(request);
    if (principal === undefined) return problem(401, 'not signed in');
    let body: unknown;
    try {
      body = JSON.parse(await readLimited(request, maxBodyBytes));
    } catch (error) {
      if (error instanceof AgUiInputError) return problem(error.status, error.message);
      return problem(400, `the body is not JSON: ${(error as Error).message}`);
    }
    let asked;
    try {
      asked = readRunAgentInput(body);
    } catch (error) {
      if (error instanceof AgUiInputError) return problem(error.status, error.message);
      throw error;
    }
    const ids = { threadId: asked.input.threadId, runId: asked.input.runId };
    const runOptions = { signal: request.signal, approvalSettleMs: options.approvalSettleMs };
    const existing = await sessions.open(principal, ids.threadId);
    if (asked.kind === 'resume') {
      if (!existing) return problem(404, 'no such thread');
      const pending = new Set((await existing.pendingApprovals?.())?.map((approval) => approval.id) ?? []);
      const unknown = asked.decisions.find(({ call }) => existing.pendingApprovals && !pending.has(call));
      if (unknown) return problem(409, `interrupt ${unknown.call} waits for no answer (decided already, or never asked)`);
      // Where the turn began, read before deciding: once decided, the turn may end before a later read.
      const turn = await existing.turnInProgress();
      for (const { call, decision } of asked.decisions) await existing.decide(call, decision);
      if (!turn) return problem(409, 'no turn is in progress');
      // The resumed run picks up after the approval requests it answered: the interrupted run showed what came before.
      const calls = asked.decisions.map(({ call }) => call);
      return agUiEventStreamResponse(
        agUiRunEvents({ ...runOptions, ids, from: turn.offset, startAfter: { kind: 'approvals', calls }, source: existing }),
      );
    }
    let session: AgUiSession;
    let from: number;
    if (existing) {
      if (!(await sessions.isOpen(ids.threadId))) return problem(409, 'this thread has ended; start a new one');
      session = existing;
      from = await existing.nextOffset();
      await existing.send(asked.text);
    } else {
      const started = await sessions.start(principal, ids.threadId, asked.text);
      if (!started) return problem(404, 'no such thread');
      ({ session, from } = started);
    }
    return agUiEventStreamResponse(
      agUiRunEvents({ ...runOptions, ids, from, startAfter: { kind: 'turn_start' }, source: session }),
    );
  };
}

async function readLimited(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw new AgUiInputError(`the body is over ${maxBytes} bytes`, 413);
  const reader = request.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new AgUiInputError(`the body is over ${maxBytes} bytes`, 413);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function problem(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: message }, { status, headers });
}
