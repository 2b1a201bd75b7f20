import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import type { ServerContext } from '@modelcontextprotocol/server';
import type { WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import { failureMessage } from '../../client/failure-message';
import type { AgentResult } from '../../core/result';
import { isOwnedBy } from '../http/run-owner';
import { agentWorkflowType } from '../../workflows/definitions';
import { interrupt, type RunContext } from './agent-call';
import { runToolResult } from './call-result';
import { approvalKey, approvalRequest, canElicit, decideWithAnswer, pendingApprovals, refuseUnaskable } from './input-required';

/** MCP's tasks extension of the 2026-07-28 revision (SEP-2663): `tasks/get`, `tasks/update`, `tasks/cancel`. */
export const tasksExtension = 'io.modelcontextprotocol/tasks';

/** How often a client is told to ask a task's status (ms). */
const pollIntervalMs = 1_000;

/** Whether the request's own capabilities declare the tasks extension: only then may its answer be a task. */
export function wantsTask(ctx: ServerContext): boolean {
  const declared = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    { extensions?: Record<string, unknown> } | undefined;
  return declared?.extensions?.[tasksExtension] !== undefined;
}

/** The answer to a tools/call made a task: the run, just started (`tasks/get` reads it from Temporal from now on). */
export async function createdTask(handle: WorkflowHandle) {
  const description = await handle.describe();
  return {
    resultType: 'task',
    taskId: handle.workflowId,
    status: 'working',
    createdAt: description.startTime.toISOString(),
    lastUpdatedAt: new Date().toISOString(),
    ttlMs: null,
    pollIntervalMs,
  };
}

/**
 * The task methods over durable runs, as the 2025 revision's (run-tasks.ts): a task is a run, its id the workflow id,
 * its state read from Temporal on every request (so any connection, to any `agent mcp` process, of the run's owner
 * reads it; to anyone else it does not exist). States as the extension defines them: `working`; `input_required`
 * with one elicitation per call waiting for approval, answered by `tasks/update`; `completed` with the tool result for
 * every run that ended with one (one that did not complete is a result with `isError`, as the extension says);
 * `cancelled` for a turn interrupted; `failed`, with a JSON-RPC error, for a run that failed without a result.
 */
export function registerTaskMethods(
  server: Server,
  context: RunContext & { approvalTimeoutMs: number },
  structured: (agent: string) => boolean,
): void {
  const owned = async (taskId: string): Promise<WorkflowHandle> => {
    const handle = context.client.workflow.getHandle(taskId);
    const mine =
      (await isOwnedBy(context.client, taskId, context.principal)) && (await handle.describe()).type === agentWorkflowType;
    if (!mine) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `no task ${taskId} that you can read`);
    return handle;
  };
  server.setRequestHandler('tasks/get', { params: z.object({ taskId: z.string() }) }, async ({ taskId }, ctx) =>
    detailedTask(await owned(taskId), context.approvalTimeoutMs, structured, ctx),
  );
  server.setRequestHandler(
    'tasks/update',
    { params: z.object({ taskId: z.string() }) },
    // The SDK lifts the answers out of the params (into the context), as for any retried request of this revision.
    async ({ taskId }, ctx) => {
      const handle = await owned(taskId);
      // Each answer decides its own call, if the run still waits for it; keys of no call waiting are ignored.
      for (const [key, answer] of Object.entries(ctx.mcpReq.inputResponses ?? {})) {
        if (key.startsWith(approvalKey(''))) await decideWithAnswer(handle, key.slice(approvalKey('').length), answer);
      }
      return {};
    },
  );
  server.setRequestHandler('tasks/cancel', { params: z.object({ taskId: z.string() }) }, async ({ taskId }) => {
    // A task cancelled is a turn interrupted: the run ends `interrupted`, which is the task `cancelled`.
    await interrupt(await owned(taskId), context.log);
    return {};
  });
}

async function detailedTask(
  handle: WorkflowHandle,
  approvalTimeoutMs: number,
  structured: (agent: string) => boolean,
  ctx: ServerContext,
): Promise<Record<string, unknown>> {
  const description = await handle.describe();
  const base = {
    taskId: handle.workflowId,
    createdAt: description.startTime.toISOString(),
    lastUpdatedAt: (description.closeTime ?? new Date()).toISOString(),
    ttlMs: null,
    pollIntervalMs,
  };
  switch (description.status.name) {
    case 'RUNNING': {
      const waiting = await pendingApprovals(handle).catch(() => []);
      if (waiting.length === 0) return { ...base, status: 'working' };
      // A client that cannot ask its user: the calls are refused, never approved silently.
      if (!canElicit(ctx)) {
        for (const request of waiting) await refuseUnaskable(handle, request.id);
        return { ...base, status: 'working' };
      }
      const inputRequests = Object.fromEntries(
        waiting.map((request) => [approvalKey(request.id), approvalRequest(request, approvalTimeoutMs)]),
      );
      return { ...base, status: 'input_required', statusMessage: 'waiting for approval', inputRequests };
    }
    case 'COMPLETED':
    case 'CONTINUED_AS_NEW': {
      const result = (await handle.result()) as AgentResult;
      if (result.status === 'interrupted') return { ...base, status: 'cancelled', statusMessage: 'the run was interrupted' };
      return { ...base, status: 'completed', result: runToolResult(handle.workflowId, result, structured(result.agent)) };
    }
    case 'CANCELLED':
      return { ...base, status: 'cancelled' };
    default: {
      const message = await handle.result().then(
        () => `the run ended ${description.status.name.toLowerCase()}`,
        (error: unknown) => failureMessage(error),
      );
      return { ...base, status: 'failed', error: { code: ProtocolErrorCode.InternalError, message } };
    }
  }
}
