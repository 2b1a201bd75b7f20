import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { followStream } from '../client/follow-stream';
import { ChatRequestError } from '../serve/http/request-error';
import { isOwnedBy, ownerMemo } from '../serve/http/run-owner';
import { readConversation } from '../client/read-conversation';
import { assertMessageSize, MessageNotAnsweredError } from '../client/send-message';
import { olderWorkerRefusal } from '../client/older-worker-refusal';
import { unpinSession } from '../client/session-versioning';
import { InvalidInputError, startAgent } from '../client/start-agent';
import type { AttachmentPart } from '../core/attachments';
import type { Message } from '../core/messages';
import type { AgentInput } from '../core/resolve-input';
import type { ApprovalDecision, PendingApproval } from '../core/result';
import type { AgentEvent } from '../core/stream-events';
import {
  approveUpdate,
  denyUpdate,
  interruptUpdate,
  sendMessageUpdate,
  statusQuery,
  steerUpdate,
  streamTailQuery,
  type StreamTail,
} from '../workflows/definitions';

/** The memo field that holds a web session's owner (serve/http/run-owner.ts). */
export { ownerMemoField } from '../serve/http/run-owner';

// A request refused, with its status (serve/http/request-error.ts): the chat's refusals, the body's, the MCP endpoint's.
export { ChatRequestError };

export interface ChatSessionsOptions {
  client: Client;
  taskQueue: string;
  /**
   * What a new session runs: the agent input without a prompt (model or agent, tools, workspace, approvals...). A
   * session and streaming are always on; `session.idleTimeoutSeconds` is 3600 unless given.
   */
  input: Omit<AgentInput, 'prompt'>;
  /** Prefixed to the chat id to make the workflow id (default `chat-`). */
  workflowIdPrefix?: string;
}

/** Where the turn in progress began in the run's stream, and its number. */
export interface TurnInProgress {
  offset: number;
  turn: number;
}

/**
 * One chat session as the web handlers see it: a session workflow owned by one principal. Every read goes through
 * queries or a follow that lasts only while a request is open, so an idle session costs nothing.
 */
export class ChatSession {
  readonly handle: WorkflowHandle;

  constructor(
    private readonly client: Client,
    readonly workflowId: string,
  ) {
    this.handle = client.workflow.getHandle(workflowId);
  }

  /** Delivers the stream's events from offset `from` until `signal` aborts or the run ends (the AG-UI adapter uses it too). */
  follow(from: number, onEvent: (event: AgentEvent, offset: number) => void, signal: AbortSignal): Promise<void> {
    return followStream<AgentEvent>(this.client, this.workflowId, {
      from,
      signal,
      onEvent: (item) => onEvent(item.data, item.offset),
    });
  }

  async pendingApprovals(): Promise<PendingApproval[]> {
    return (await this.handle.query(statusQuery)).pendingApprovals;
  }

  /** The events the stream still holds (the previous turn and this one): a query, nothing written to history. */
  async tail(): Promise<StreamTail['events']> {
    const events: StreamTail['events'] = [];
    for (let from = 0; ;) {
      const tail = await this.handle.query(streamTailQuery, from);
      events.push(...tail.events);
      if (!tail.more || tail.next <= from) return events;
      from = tail.next;
    }
  }

  /** The offset the next stream event will get. */
  async nextOffset(): Promise<number> {
    let from = 0;
    for (;;) {
      const tail = await this.handle.query(streamTailQuery, from);
      if (!tail.more || tail.next <= from) return Math.max(tail.next, from);
      from = tail.next;
    }
  }

  /** The turn in progress, from the stream: the last turn_start that no turn_end followed. */
  async turnInProgress(): Promise<TurnInProgress | undefined> {
    let current: TurnInProgress | undefined;
    for (const { offset, event } of await this.tail()) {
      if (event.type === 'turn_start') current = { offset, turn: event.turn };
      else if (event.type === 'turn_end' && current?.turn === event.turn) current = undefined;
    }
    return current;
  }

  /**
   * Hands the session a message and returns once the session accepted it (queued behind a turn in progress, as
   * the CLI's messages are, or with `steer`, for the turn in progress to take); the answer comes on the stream.
   * Refused messages throw ChatRequestError (422).
   */
  async send(text: string, options: { steer?: boolean; attachments?: AttachmentPart[] } = {}): Promise<void> {
    try {
      assertMessageSize(text);
      await unpinSession(this.handle);
      const update = options.steer ? steerUpdate : sendMessageUpdate;
      // With attachments, the message is its text and their references (stored already); without, the bare string.
      const sent = options.attachments?.length ? { content: text, attachments: options.attachments } : text;
      await this.handle.startUpdate(update, { args: [sent], waitForStage: WorkflowUpdateStage.ACCEPTED });
    } catch (error) {
      // A worker that predates attachments calls any message with them empty: said as what it is.
      const cause = error instanceof WorkflowUpdateFailedError ? (error.cause as { message: string; type?: string }) : undefined;
      const older =
        cause && olderWorkerRefusal({ message: cause.message, type: cause.type }, text, options.attachments?.length ?? 0);
      throw older
        ? new ChatRequestError(422, `the message was not accepted: ${older}`)
        : refused(error, 'the message was not accepted');
    }
  }

  async decide(call: string, decision: ApprovalDecision): Promise<void> {
    try {
      if (decision.approved)
        await this.handle.executeUpdate(approveUpdate, {
          args: [{ call, ...(decision.arguments !== undefined && { arguments: decision.arguments }) }],
        });
      else await this.handle.executeUpdate(denyUpdate, { args: [{ call, reason: decision.reason }] });
    } catch (error) {
      throw refused(error, `the decision on ${call} was refused`, 409);
    }
  }

  /** Ends the turn in progress, as `agent interrupt` and Ctrl-C in `agent chat` do; the session goes on. */
  async interrupt(): Promise<void> {
    try {
      await this.handle.executeUpdate(interruptUpdate);
    } catch (error) {
      throw refused(error, 'the turn could not be stopped', 409);
    }
  }

  conversation(): Promise<Message[]> {
    return readConversation(this.handle);
  }
}

/**
 * The sessions of the web handlers: who owns which, starting one on its first message. A session belongs to the
 * principal that started it, and that is part of the run, not of this process:
 * - the owner (a hash of the principal) is in the run's memo, set at start and carried whole to every run the session
 *   continues as new into (workflows/versioning.ts);
 * - it is read from the server on every request (one describe: a few milliseconds, a small part of a request's
 *   queries; docs/web.md), never remembered here, so a second handler instance, a restart or a new owner never meets a
 *   stale answer;
 * - a chat id starts a run once: its workflow id is never reused (REJECT_DUPLICATE), so an ended chat cannot be
 *   started again by anyone else; its owner is told it has ended.
 * Anyone but the owner is told the session does not exist.
 */
export class ChatSessions {
  private readonly prefix: string;

  constructor(private readonly options: ChatSessionsOptions) {
    this.prefix = options.workflowIdPrefix ?? 'chat-';
  }

  workflowIdOf(chatId: string): string {
    return `${this.prefix}${chatId}`;
  }

  /** Session `chatId` if it exists and is `principal`'s, asked of the server now; undefined otherwise (404 for both). */
  async open(principal: string, chatId: string): Promise<ChatSession | undefined> {
    const workflowId = this.workflowIdOf(chatId);
    return (await isOwnedBy(this.options.client, workflowId, principal))
      ? new ChatSession(this.options.client, workflowId)
      : undefined;
  }

  /** True when the session's current run is still open (a closed one takes no messages). */
  async isOpen(chatId: string): Promise<boolean> {
    const description = await this.options.client.workflow.getHandle(this.workflowIdOf(chatId)).describe();
    return description.status.name === 'RUNNING';
  }

  /**
   * Starts session `chatId` for `principal` with its first message; its first turn starts at offset 0. Undefined
   * when the id is, or was, another principal's session.
   */
  async start(
    principal: string,
    chatId: string,
    text: string,
    attachments: AttachmentPart[] = [],
  ): Promise<{ session: ChatSession; from: number } | undefined> {
    assertMessageSize(text);
    const { input } = this.options;
    try {
      await startAgent(
        this.options.client,
        { ...input, stream: true, session: input.session ?? { idleTimeoutSeconds: 3600 } },
        {
          taskQueue: this.options.taskQueue,
          workflowId: this.workflowIdOf(chatId),
          staticSummary: 'web chat',
          memo: ownerMemo(principal),
          // Once used, a chat id is its owner's for as long as the server keeps the run: an ended chat is not started
          // again, by its owner (who is told it has ended) or by anyone else (404).
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        },
      );
    } catch (error) {
      if (error instanceof InvalidInputError) throw new ChatRequestError(500, `the chat handler's input: ${error.message}`);
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      // Started meanwhile (another tab's first message), or ended: theirs to use only if it is the same principal's.
      const session = await this.open(principal, chatId);
      if (!session) return undefined;
      if (!(await this.isOpen(chatId))) throw new ChatRequestError(409, 'this chat has ended; start a new one');
      const from = await session.nextOffset();
      await session.send(text, { attachments });
      return { session, from };
    }
    const session = new ChatSession(this.options.client, this.workflowIdOf(chatId));
    await session.send(text, { attachments });
    return { session, from: 0 };
  }
}

function refused(error: unknown, what: string, status = 422): unknown {
  if (error instanceof MessageNotAnsweredError) return new ChatRequestError(422, `${what}: ${error.message}`);
  if (error instanceof WorkflowUpdateFailedError) {
    return new ChatRequestError(status, `${what}: ${error.cause?.message ?? error.message}`);
  }
  if (error instanceof WorkflowNotFoundError) return new ChatRequestError(409, `${what}: the session has ended`);
  return error;
}
