import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { runOwnerMemoField } from '../../core/approval-policy';
import { ownerHash } from '../../activities/owner-hash';

/**
 * Who owns a run, recorded in the run and read from the server: the one rule of ownership that every endpoint serving
 * runs to principals shares (the web chat's sessions, web/chat-sessions.ts, and `agent mcp`'s runs, serve/mcp/). The
 * owner is in the run's memo, set at start and carried whole to every run it continues as new into
 * (workflows/versioning.ts); it is read on every request, never remembered by a process.
 */

/** The memo field that holds a run's owner: a hash of the principal, so the Web UI shows no user's name. */
export const ownerMemoField = runOwnerMemoField;

/** The memo that records `principal` as a new run's owner (startAgent's `memo`). */
export function ownerMemo(principal: string): Record<string, string> {
  return { [ownerMemoField]: ownerHash(principal) };
}

/** Whether run `workflowId` exists and is `principal`'s, asked of the server now. Anyone else's, or none, is false. */
export async function isOwnedBy(client: Client, workflowId: string, principal: string): Promise<boolean> {
  const owner = await runOwner(client, workflowId);
  return owner !== undefined && owner === ownerHash(principal);
}

/**
 * The owner recorded in the run's current execution. A chain that continued as new before the memo was carried whole
 * lost it in its later runs; its first run still has it (the first run's memo never changes once it has closed).
 */
async function runOwner(client: Client, workflowId: string): Promise<string | undefined> {
  const current = await describe(client, workflowId);
  const owner = current?.memo?.[ownerMemoField];
  if (typeof owner === 'string') return owner;
  const firstRunId = current?.raw.workflowExecutionInfo?.firstRunId;
  if (!firstRunId || firstRunId === current.runId) return undefined;
  const first = (await describe(client, workflowId, firstRunId))?.memo?.[ownerMemoField];
  return typeof first === 'string' ? first : undefined;
}

function describe(client: Client, workflowId: string, runId?: string): Promise<WorkflowExecutionDescription | undefined> {
  return client.workflow
    .getHandle(workflowId, runId)
    .describe()
    .catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    });
}
