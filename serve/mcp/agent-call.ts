import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { awaitResult } from '../../client/await-result';
import { failureMessage } from '../../client/failure-message';
import { followStream } from '../../client/follow-stream';
import { startAgent } from '../../client/start-agent';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import type { AgentEvent } from '../../core/stream-events';
import { ownerMemo } from '../http/run-owner';
import { interruptUpdate } from '../../workflows/definitions';
import { resultToolName } from './agent-tools';
import { failedToolResult, runToolResult } from './call-result';
import { ElicitedApprovals } from './elicit-approvals';
import { CallProgress } from './progress';

/**
 * How long the stream may take to tell the rest of a run that has ended: usually one poll, or the tail query of the
 * closed run (client/follow-stream.ts's catch-up, which needs a worker to answer, and here gets as long a page). At
 * 5 s, for the wait and for the query alike, a loaded worker cut the catch-up short, the call answered first, and the
 * SDK's Client dropped its last progress (test/e2e/mcp-task-states.test.ts holds every query 8 s).
 */
export const streamDrainMs = 15_000;

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a call of either revision needs to start and read runs: the server, and who the client is. */
export interface RunContext {
  client: Client;
  taskQueue: string;
  /** Who the client is: the owner recorded in every run it starts (serve/http/run-owner.ts). */
  principal: string;
  log(line: string): void;
}

/** What one MCP server of the 2025-11-25 revision (one client's connection) needs to run its calls. */
export interface CallContext extends RunContext {
  server: Server;
  /** Aborted when the connection closes: what follows a run for a task (run-tasks.ts) stops then. */
  closed: AbortSignal;
}

/** How an agent call ends before its run does: the client cancelled it, or the client went away. */
type Left = { left: 'cancelled' | 'gone' };

/**
 * One call of an agent tool: a durable run started for the caller, followed until it ends. Its stream gives the
 * client progress notifications and puts its approvals to the client's user (elicit-approvals.ts). The client's
 * cancellation interrupts the run's turn (the run ends with status `interrupted`, as after `agent interrupt`); a
 * client that goes away leaves the run going on, its answer kept for `agent_result` with the run's id, which the
 * first progress notification and the result's `_meta` name.
 */
export async function callAgent(
  context: CallContext,
  input: AgentInput,
  options: { structured: boolean; approvalTimeoutMs: number },
  extra: CallExtra,
  /** Told the run's id as soon as it started (a call made as a task answers with it at once). */
  onStarted?: (workflowId: string) => void,
): Promise<CallToolResult> {
  const handle = await startAgent(context.client, input, {
    taskQueue: context.taskQueue,
    memo: ownerMemo(context.principal),
    staticSummary: input.prompt,
  });
  const workflowId = handle.workflowId;
  onStarted?.(workflowId);
  const progress = new CallProgress(extra);
  progress.say(
    `run ${workflowId} started; if this call is lost, ${resultToolName} {"runId": "${workflowId}"} returns its answer`,
  );
  const approvals = new ElicitedApprovals(context.server, handle, extra.signal, options.approvalTimeoutMs, context.log);
  const following = new AbortController();
  const followed = followStream<AgentEvent>(context.client, workflowId, {
    from: 0,
    signal: following.signal,
    // The read of the run's last events may take as long as the result waits for them.
    catchUpTimeoutMs: streamDrainMs,
    onEvent: ({ data: event }) => {
      progress.event(event);
      if (event.type === 'approval_requested') approvals.requested(event);
      else if (event.type === 'approval_decided') approvals.decided(event.id);
    },
  }).catch((error: Error) => context.log(`agent mcp: stopped following ${workflowId}: ${error.message}`));
  try {
    const outcome = await Promise.race([runResult(handle, context.log), leaving(extra.signal, context.server)]);
    if ('left' in outcome) {
      if (outcome.left === 'cancelled') await interrupt(handle, context.log);
      // No response goes to a cancelled request or a client gone; the run's answer waits for agent_result.
      return failedToolResult(workflowId, outcome.left === 'cancelled' ? 'interrupted by the client' : 'the client went away');
    }
    // The stream ends with the run: what it still holds (the last tool results, the turn's end) is told first.
    await Promise.race([followed, new Promise((resolve) => setTimeout(resolve, streamDrainMs).unref())]);
    // And sent before the result: a client drops a request's progress that comes after its answer.
    await progress.sent();
    if ('error' in outcome) return failedToolResult(workflowId, failureMessage(outcome.error));
    return runToolResult(workflowId, outcome.result, options.structured);
  } finally {
    following.abort();
    await followed;
  }
}

/** The run's result, waited for across Temporal server restarts; its failure as a value. */
export async function runResult(
  handle: WorkflowHandle,
  log: (line: string) => void,
): Promise<{ result: AgentResult } | { error: unknown }> {
  try {
    const result = (await awaitResult(
      () => handle.result(),
      (error) => log(`agent mcp: lost the Temporal server (${error.message}); the run is durable, still waiting for it`),
    )) as AgentResult;
    return { result };
  } catch (error) {
    return { error };
  }
}

/**
 * Resolves when the request's signal aborts: `cancelled` for the client's notifications/cancelled, `gone` when the
 * connection closed. The SDK aborts every open request of a connection that closes, and drops the connection's
 * transport right after; a cancellation leaves it.
 */
export function leaving(signal: AbortSignal, server: Server): Promise<Left> {
  return leavingWhen(signal, () => server.transport === undefined);
}

/** Resolves when `signal` aborts: `gone` when `gone()` says the client went away then, else `cancelled`. */
export function leavingWhen(signal: AbortSignal, gone: () => boolean): Promise<Left> {
  return new Promise((resolve) => {
    const decide = () => queueMicrotask(() => resolve({ left: gone() ? 'gone' : 'cancelled' }));
    if (signal.aborted) decide();
    else signal.addEventListener('abort', decide, { once: true });
  });
}

/** Ends the run's turn, as `agent interrupt` does; a run that ended meanwhile has nothing to interrupt. */
export async function interrupt(handle: WorkflowHandle, log: (line: string) => void): Promise<void> {
  await handle.executeUpdate(interruptUpdate).catch((error: Error) => {
    log(`agent mcp: could not interrupt ${handle.workflowId}: ${error.message}`);
  });
}
