import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ResolvedAgentInput } from '../core/input';
import type { MessageWithAttachments } from '../core/attachments';
import type { Message } from '../core/messages';
import type { AgentStatusSnapshot, ApprovalDecision, MessageReply, PendingApproval } from '../core/result';
import type { StreamEvent } from '../core/stream-events';

/** The whole neutral conversation so far; `from` skips the first messages. */
export const messagesQuery = defineQuery<Message[], [{ from?: number }?]>('messages');

/**
 * The conversation as a reader can rebuild it without the worker storing anything: the transcript that stands for
 * its first messages (the model activity stored it already), and the messages after it. A client that reads the
 * transcript store has the whole conversation; one that cannot asks `messagesQuery` instead. A large `messages`
 * answer goes to external storage like any payload, so reading a run that way would write to the bucket.
 */
export const conversationQuery = defineQuery<ConversationSnapshot>('conversation');

export interface ConversationSnapshot {
  /** The stored transcript of messages [0, length), when there is one. */
  transcript?: { id: string; length: number };
  /** The messages after it (all of them when there is no transcript). */
  messages: Message[];
}

/** Where the run is now, a snapshot: phase, iteration, tool calls in flight, usage so far. Its story is the run's stream (core/stream-events.ts). */
export const statusQuery = defineQuery<AgentStatusSnapshot>('status');

/**
 * The events the run's stream still holds from offset `from` on (the previous turn and the current one), at most
 * `streamTailLimit` of them and about `streamTailBytes` (a long answer's text and reply events are large). Not for following a run (that is the stream's long poll, which is how events arrive as
 * they happen): a subscriber asks it once when the run has ended, since a run's last events reach only a poll that
 * was waiting at that moment. A query, so it works on a closed run and writes nothing to its history.
 */
export const streamTailQuery = defineQuery<StreamTail, [number]>('streamTail');

/** `Event`: what the run's stream carries (an agent run's AgentEvent, an eval's EvalEvent); the query answers either. */
export interface StreamTail<Event extends StreamEvent = StreamEvent> {
  events: Array<{ offset: number; event: Event }>;
  /** The offset after the last event returned: ask again from here while `more` says the log holds more. */
  next: number;
  more: boolean;
}

/** Events one streamTail answer carries at most, so that an answer stays far below gRPC's message limit. */
export const streamTailLimit = 500;
/** Encoded bytes of events one streamTail answer carries at most (one event always): far below gRPC's 4 MB. */
export const streamTailBytes = 1024 * 1024;

export const agentWorkflowType = 'agentWorkflow';

/** What a run was started with (its settings, without the conversation), and the agent that has the conversation now: what a fork copies. */
export interface RunSettings {
  input: Omit<ResolvedAgentInput, 'prompt' | 'messages' | 'carried'>;
  agent: string;
}
export const settingsQuery = defineQuery<RunSettings>('settings');

/**
 * A session's next user message; returns the assistant's reply to it. Messages
 * sent during a turn queue up. A turn that fails fails this update with the
 * provider's message, and the session goes on. If the run continues as new
 * before answering, the update returns `{status: 'pending', ticket}`: the
 * reply then comes from awaitReply(ticket) on the next run. A message with images or files is an object
 * (core/attachments.ts: its text and their references, stored by the client first).
 */
export const sendMessageUpdate = defineUpdate<MessageReply, [string | MessageWithAttachments]>('sendMessage');

/**
 * A steering message for the turn in progress: the turn takes it at its next iteration (after the model call and
 * tool calls under way, before the next model call), as a user message, and the stream says so (`steered`). It gets
 * no answer of its own: the update returns the reply of the turn that took it. A turn that ends before taking it
 * leaves it to the next turn, ahead of the queue, whose reply it gets; with no turn in progress it is an ordinary
 * message. Refused, and pending across continue-as-new, as sendMessage is.
 */
export const steerUpdate = defineUpdate<MessageReply, [string | MessageWithAttachments]>('steer');

/** The reply to a message handed over by continue-as-new (see sendMessage); waits for it if need be. */
export const awaitReplyUpdate = defineUpdate<MessageReply, [number]>('awaitReply');

/** Ends a session once the messages already sent are answered. */
export const endSessionSignal = defineSignal('endSession');

/**
 * Approves the tool calls waiting for approval: the one named, or all of them; returns the ids approved. `arguments`
 * (JSON text, one named call only): the call runs with these instead of the model's (docs/policy.md, "Edits").
 */
export const approveUpdate = defineUpdate<string[], [{ call?: string; arguments?: string }]>('approve');

/** Denies the tool calls waiting for approval (the one named, or all): they are not run, and the model is told why. */
export const denyUpdate = defineUpdate<string[], [{ call?: string; reason?: string }]>('deny');

/** Ends the current turn at once: in-flight calls are cancelled and get "interrupted" results; a session goes on. */
export const interruptUpdate = defineUpdate<void, []>('interrupt');

// Between a subagent and its parent: requests go up, decisions come down.
export const approvalRequestedSignal = defineSignal<[{ from: string; request: PendingApproval }]>('approvalRequested');
export const approvalSettledSignal = defineSignal<[{ from: string; id: string }]>('approvalSettled');
export const approvalDecidedSignal = defineSignal<[{ id: string; decision: ApprovalDecision }]>('approvalDecided');
