import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode, type RequestStateCodec } from '@modelcontextprotocol/server';
import type { WorkflowHandle } from '@temporalio/client';
import { failureMessage } from '../../client/failure-message';
import { followStream } from '../../client/follow-stream';
import { startAgent } from '../../client/start-agent';
import type { AgentInput } from '../../core/resolve-input';
import type { PendingApproval } from '../../core/result';
import type { AgentEvent } from '../../core/stream-events';
import { isOwnedBy, ownerMemo } from '../http/run-owner';
import { interrupt, leavingWhen, runResult, streamDrainMs, type RunContext } from './agent-call';
import { resultToolName } from './agent-tools';
import { failedToolResult, runToolResult } from './call-result';
import {
  approvalKey,
  approvalRequired,
  canElicit,
  decideWithAnswer,
  pendingApprovals,
  promptDigest,
  refuseUnaskable,
  type ApprovalState,
} from './input-required';
import { CallProgress } from './progress';
import { createdTask, wantsTask } from './modern-tasks';

/** What the server of the 2026-07-28 revision (one connection, or one HTTP request) needs for its calls. */
export interface ModernContext extends RunContext {
  approvalTimeoutMs: number;
  codec: RequestStateCodec<ApprovalState>;
  /** Whether the client had gone away (its connection closed) when a call's signal aborted: else it cancelled. */
  gone(): boolean;
}

/**
 * One call of an agent tool from a client of MCP's 2026-07-28 revision. A first call starts a durable run (as the
 * 2025 revision's call does, agent-call.ts); a client that declared the tasks extension gets the run as a task at once
 * (modern-tasks.ts). Otherwise the call follows the run, sending its progress, until it ends (the result) or waits for
 * a person's approval (`input_required`, input-required.ts); the retried request carries the answer, decides that
 * call and follows the same run on. Cancelling the request interrupts the run's turn; a client gone leaves it going.
 */
export async function callAgentModern(
  context: ModernContext,
  tool: string,
  input: AgentInput & { prompt: string },
  structured: boolean,
  ctx: ServerContext,
) {
  const progress = new CallProgress({
    _meta: ctx.mcpReq._meta as { progressToken?: string | number } | undefined,
    sendNotification: (notification) => ctx.mcpReq.notify(notification),
  });
  const state = ctx.mcpReq.requestState<ApprovalState>();
  let handle: WorkflowHandle;
  if (state !== undefined) {
    handle = await answered(context, tool, input.prompt, state, ctx);
    const decision = await decideWithAnswer(handle, state.call, ctx.mcpReq.inputResponses?.[approvalKey(state.call)]);
    if (decision === 'unanswered') {
      const asked = (await pendingApprovals(handle)).find((pending) => pending.id === state.call);
      if (asked) return approvalRequired(context.codec, ctx, state, asked, context.approvalTimeoutMs);
    }
  } else {
    handle = await startAgent(context.client, input, {
      taskQueue: context.taskQueue,
      memo: ownerMemo(context.principal),
      staticSummary: input.prompt,
    });
    if (wantsTask(ctx)) return createdTask(handle);
    progress.say(
      `run ${handle.workflowId} started; if this call is lost, ${resultToolName} {"runId": "${handle.workflowId}"} returns its answer`,
    );
  }
  return follow(context, handle, { tool, prompt: promptDigest(input.prompt), structured }, ctx, progress);
}

/** The run a retried call's verified state names, if it is the caller's and the state was minted for this call. */
async function answered(
  context: ModernContext,
  tool: string,
  prompt: string,
  state: ApprovalState,
  ctx: ServerContext,
): Promise<WorkflowHandle> {
  const forThisCall = typeof state === 'object' && state !== null && state.tool === tool && state.prompt === promptDigest(prompt);
  if (!forThisCall || !(await isOwnedBy(context.client, state.run, context.principal))) {
    context.log(`agent mcp: refused a requestState sent with another call (request ${String(ctx.mcpReq.id)})`);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'this requestState answers another call');
  }
  return context.client.workflow.getHandle(state.run);
}

async function follow(
  context: ModernContext,
  handle: WorkflowHandle,
  call: { tool: string; prompt: string; structured: boolean },
  ctx: ServerContext,
  progress: CallProgress,
) {
  const workflowId = handle.workflowId;
  let waiting!: (request: PendingApproval) => void;
  const approval = new Promise<{ approval: PendingApproval }>(
    (resolve) => (waiting = (request) => resolve({ approval: request })),
  );
  const seen = new Set<string>();
  // The stream tells every approval the run ever asked for (a retry follows it from the start): the run's own pending
  // approvals say which still waits. One the client cannot ask about is refused, never approved silently.
  const requested = async (request: PendingApproval) => {
    if (seen.has(request.id)) return;
    seen.add(request.id);
    if (!(await pendingApprovals(handle)).some((pending) => pending.id === request.id)) return;
    if (canElicit(ctx)) waiting(request);
    else await refuseUnaskable(handle, request.id);
  };
  const following = new AbortController();
  const followed = followStream<AgentEvent>(context.client, workflowId, {
    from: 0,
    signal: following.signal,
    catchUpTimeoutMs: streamDrainMs,
    onEvent: ({ data: event }) => {
      progress.event(event);
      if (event.type === 'approval_requested') {
        requested(event).catch((error: Error) =>
          context.log(`agent mcp: could not ask about call ${event.id} of ${workflowId}: ${error.message}`),
        );
      }
    },
  }).catch((error: Error) => context.log(`agent mcp: stopped following ${workflowId}: ${error.message}`));
  let waitsForTheRun = true;
  try {
    const outcome = await Promise.race([runResult(handle, context.log), approval, leavingWhen(ctx.mcpReq.signal, context.gone)]);
    if ('approval' in outcome) {
      // The stream's open poll waits at the run until its next event (the decision): it ends then, unwaited for.
      waitsForTheRun = false;
      await progress.sent();
      const state = { run: workflowId, call: outcome.approval.id, tool: call.tool, prompt: call.prompt };
      return approvalRequired(context.codec, ctx, state, outcome.approval, context.approvalTimeoutMs);
    }
    if ('left' in outcome) {
      if (outcome.left === 'cancelled') await interrupt(handle, context.log);
      return failedToolResult(workflowId, outcome.left === 'cancelled' ? 'interrupted by the client' : 'the client went away');
    }
    await Promise.race([followed, new Promise((resolve) => setTimeout(resolve, streamDrainMs).unref())]);
    await progress.sent();
    if ('error' in outcome) return failedToolResult(workflowId, failureMessage(outcome.error)) as CallToolResult;
    return runToolResult(workflowId, outcome.result, call.structured) as CallToolResult;
  } finally {
    following.abort();
    if (waitsForTheRun) await followed;
  }
}
