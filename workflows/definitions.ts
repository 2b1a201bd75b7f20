import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Message } from '../agent/messages';
import type { AgentStatusSnapshot, ProgressEvent, TurnReply } from '../agent/result';

/** The whole neutral conversation so far; `from` skips the first messages. */
export const messagesQuery = defineQuery<Message[], [{ from?: number }?]>('messages');

/** Where the run is: iteration, tool calls in flight, usage so far. */
export const statusQuery = defineQuery<AgentStatusSnapshot>('status');

/**
 * Model turns and finished tool calls, in the order they happened, from index
 * `from` on (counted over every run of a session); the CLI prints them.
 */
export const progressQuery = defineQuery<ProgressEvent[], [number?]>('progress');

export const agentWorkflowType = 'agentWorkflow';

/** A session's next user message; returns the assistant's answer to it. Messages sent during a turn queue up. */
export const sendMessageUpdate = defineUpdate<TurnReply, [string]>('sendMessage');

/** Ends a session once the messages already sent are answered. */
export const endSessionSignal = defineSignal('endSession');
