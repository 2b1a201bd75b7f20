import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { ErrorCode, McpError, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import { failureMessage } from '../../client/failure-message';
import type { AgentResult } from '../../core/result';
import { isOwnedBy } from '../http/run-owner';
import { agentWorkflowType, interruptUpdate, statusQuery } from '../../workflows/definitions';
import { runResult, type CallContext } from './agent-call';
import { failedToolResult, runToolResult } from './call-result';

/** How often a client is told to ask a task's status (ms). */
const pollIntervalMs = 1_000;

/** How long tasks/cancel waits for the interrupted run to end before it answers with the task as it is (ms). */
const cancelWaitMs = 10_000;

/**
 * MCP tasks (the SDK's experimental `tasks/get`, `tasks/result`, `tasks/cancel`) over durable runs: a task is a run,
 * its id the run's workflow id, its status and result read from Temporal, never kept in this process. So a task
 * outlives the connection and the `agent mcp` process that created it, and any connection of the same principal
 * reads it (the owner recorded in the run, serve/http/run-owner.ts); to anyone else it does not exist. The runs are started
 * by the tool call itself (agent-server.ts), so `createTask` is never the way in.
 */
export function runTaskStore(context: CallContext, structured: (agent: string) => boolean): TaskStore {
  const owned = async (taskId: string) =>
    (await isOwnedBy(context.client, taskId, context.principal)) &&
    (await context.client.workflow.getHandle(taskId).describe()).type === agentWorkflowType;
  return {
    createTask() {
      return Promise.reject(new McpError(ErrorCode.InternalError, 'agent mcp starts its tasks as runs, in the tool call'));
    },
    async getTask(taskId) {
      if (!(await owned(taskId))) return null;
      return runTask(context, taskId);
    },
    async getTaskResult(taskId): Promise<Result> {
      if (!(await owned(taskId))) throw new McpError(ErrorCode.InvalidParams, `no task ${taskId} that you can read`);
      const outcome = await runResult(context.client.workflow.getHandle(taskId), context.log);
      if ('error' in outcome) return failedToolResult(taskId, failureMessage(outcome.error));
      return runToolResult(taskId, outcome.result, structured(outcome.result.agent));
    },
    // The run keeps its own result.
    storeTaskResult: () => Promise.resolve(),
    async updateTaskStatus(taskId, status) {
      if (status !== 'cancelled' || !(await owned(taskId))) return;
      // A task cancelled is a turn interrupted, as a cancelled call's: the run ends `interrupted`, which is the task
      // `cancelled`. Waited for (a turn interrupted ends at once), so that tasks/cancel answers with the task ended.
      const handle = context.client.workflow.getHandle(taskId);
      await handle
        .executeUpdate(interruptUpdate)
        .catch((error: Error) => context.log(`agent mcp: could not interrupt ${taskId}: ${error.message}`));
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([
        handle.result().catch(() => undefined),
        new Promise((resolve) => (waited = setTimeout(resolve, cancelWaitMs))),
      ]);
      clearTimeout(waited);
    },
    // A run's owner is in its memo, which the server cannot search: tasks are found by their id, not listed.
    listTasks: () => Promise.resolve({ tasks: [] }),
  };
}

/**
 * The task a run is now, in MCP's task states: working (input_required while a call waits for approval), completed
 * (the run completed), cancelled (its turn was interrupted, or the workflow cancelled), failed (any other end).
 */
export async function runTask(context: CallContext, taskId: string): Promise<Task> {
  const handle = context.client.workflow.getHandle(taskId);
  const description = await handle.describe();
  const base = {
    taskId,
    ttl: null,
    createdAt: description.startTime.toISOString(),
    lastUpdatedAt: (description.closeTime ?? new Date()).toISOString(),
    pollInterval: pollIntervalMs,
  };
  switch (description.status.name) {
    case 'RUNNING': {
      const waiting = await handle.query(statusQuery).then(
        (status) => status.pendingApprovals.length > 0,
        () => false,
      );
      return { ...base, status: waiting ? 'input_required' : 'working' };
    }
    case 'COMPLETED':
    case 'CONTINUED_AS_NEW': {
      // A run that ended but not `completed` is an error result (call-result.ts), so a failed task, as MCP's tasks
      // say of a call whose result has isError; one interrupted (tasks/cancel, agent interrupt) is cancelled.
      const result = (await handle.result()) as AgentResult;
      if (result.status === 'completed') return { ...base, status: 'completed' };
      if (result.status === 'interrupted') return { ...base, status: 'cancelled', statusMessage: 'the run was interrupted' };
      return { ...base, status: 'failed', statusMessage: `the run ended with status ${result.status}` };
    }
    case 'CANCELLED':
      return { ...base, status: 'cancelled' };
    default:
      return { ...base, status: 'failed', statusMessage: `the run ended ${description.status.name.toLowerCase()}` };
  }
}
