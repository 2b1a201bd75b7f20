import { defineQuery } from '@temporalio/workflow';
import type { Message } from '../agent/messages';
import type { AgentStatusSnapshot, ProgressEvent } from '../agent/result';

/** The whole neutral conversation so far; `from` skips the first messages. */
export const messagesQuery = defineQuery<Message[], [{ from?: number }?]>('messages');

/** Where the run is: iteration, tool calls in flight, usage so far. */
export const statusQuery = defineQuery<AgentStatusSnapshot>('status');

/** Model turns and finished tool calls, in the order they happened, from index `from` on; the CLI prints them. */
export const progressQuery = defineQuery<ProgressEvent[], [number?]>('progress');

export const agentWorkflowType = 'agentWorkflow';
