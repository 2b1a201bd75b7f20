import type { ApprovalDecision } from '../core/result';
import { AgUiTranslator } from './ag-ui-events';
import { readRunAgentInput } from './ag-ui-input';
import { agUiEventStreamResponse, type AgUiTurnFollow } from './ag-ui-run';
import { problem, RequestFlow, type WebEndpointOptions } from './request-flow';
import { followTurn } from './turn-response';

/**
 * The AG-UI endpoint: POST a RunAgentInput, read the run as server-sent AG-UI events. It owns no sessions and no
 * request flow: both are the chat handler's (web/request-flow.ts over ChatSessions), so a thread is the same session
 * useChat reaches by the same id, and the two endpoints are two translators over one flow and one follow.
 * AgUiSession and AgUiSessionAccess say what of the sessions it relies on.
 */
export interface AgUiSession extends AgUiTurnFollow {
  /** The offset the session's next stream event will get: a message sent now has its turn start there or later. */
  nextOffset(): Promise<number>;
  /** The turn in progress and where it began on the stream, if one runs. */
  turnInProgress(): Promise<{ offset: number; turn: number } | undefined>;
  /** Hands the session a message (queued behind a turn in progress, or steering it); resolves once the session has it. */
  send(text: string, options?: { steer?: boolean }): Promise<void>;
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

/** The options both endpoints share (web/request-flow.ts): give both the same, and they reach the same sessions. */
export type AgUiHandlerOptions = WebEndpointOptions;

/**
 * A function from a Web-standard Request to a Response, as the chat handler: mount it at a path of your own (for
 * `agent serve`, `/api/ag-ui`). It reads a RunAgentInput into the request flow both endpoints share (a message, or
 * `resume` entries as decisions), and translates the turn that follows into AG-UI events.
 */
export function createAgUiHandler(options: AgUiHandlerOptions): (request: Request) => Promise<Response> {
  const flow = new RequestFlow(options, 'AG-UI');
  return (request) =>
    flow.serve(request, async () => {
      if (request.method !== 'POST') return problem(405, 'POST a RunAgentInput', { allow: 'POST' });
      const principal = await flow.principal(request);
      const asked = readRunAgentInput(await flow.readBody(request));
      const ids = { threadId: asked.input.threadId, runId: asked.input.runId };
      const turn = await flow.ask(
        principal,
        asked.kind === 'resume'
          ? { kind: 'approvals', id: ids.threadId, decisions: asked.decisions }
          : {
              kind: 'message',
              id: ids.threadId,
              text: asked.text,
              ...(asked.steer && { steer: true }),
              ...(asked.files && { files: asked.files }),
            },
      );
      return agUiEventStreamResponse(
        followTurn(new AgUiTranslator(ids, turn.startAfter), {
          source: turn.session,
          from: turn.from,
          signal: request.signal,
          approvalSettleMs: options.approvalSettleMs,
        }),
      );
    });
}
