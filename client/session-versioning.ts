import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { runKindMemoField, runKinds } from '../workflows/versioning';

const { VersioningBehavior } = temporal.api.enums.v1;

/**
 * Makes a session auto-upgrading again when Temporal has it pinned, before a message is sent to it, so that the
 * message goes to the deployment's current build (docs/upgrades.md, "A rollback and the sessions it pinned").
 *
 * A session declares AUTO_UPGRADE on every workflow task its code runs (workflows/versioning.ts), but the SDK
 * completes some tasks without running the workflow code: a task that brings nothing new to a run the worker holds in
 * its cache (the retry of a task that failed on a bad build, once the message it carried was dropped; a heartbeat
 * while local activities run). Such a completion reports no behaviour, and Temporal records the worker's default,
 * PINNED (worker/versioning.ts): the session stays on that build until its code runs again there, so after a
 * rollback and the next deploy its next message was answered by the old build, or waited for its workers forever.
 *
 * A versioning override of AUTO_UPGRADE on the session's current run undoes that, whatever later completions report;
 * Temporal does not pass it on at continue-as-new, where the next run declares AUTO_UPGRADE itself. Only a run whose
 * memo says it is a session is touched: a run started without it is pinned on purpose. Costs one describe per
 * message; writes only when the session is pinned. Returns whether it unpinned the session.
 */
export async function unpinSession(handle: WorkflowHandle): Promise<boolean> {
  const { workflowService, options } = handle.client;
  const { namespace } = options;
  try {
    const { workflowExecutionInfo: info } = await workflowService.describeWorkflowExecution({
      namespace,
      execution: { workflowId: handle.workflowId },
    });
    const versioning = info?.versioningInfo;
    if (versioning?.behavior !== VersioningBehavior.VERSIONING_BEHAVIOR_PINNED || versioning.versioningOverride) return false;
    // The memo is decoded (a codec may seal it) only for a pinned run, the rare case.
    const runId = info?.execution?.runId ?? undefined;
    const { memo } = await handle.client.getHandle(handle.workflowId, runId).describe();
    if (memo?.[runKindMemoField] !== runKinds.session) return false;
    await workflowService.updateWorkflowExecutionOptions({
      namespace,
      workflowExecution: { workflowId: handle.workflowId, runId },
      workflowExecutionOptions: { versioningOverride: { autoUpgrade: true } },
      updateMask: { paths: ['versioning_override'] },
    });
    return true;
  } catch (error) {
    // No such workflow (the message's own call reports it, as before), or the run closed meanwhile (a continue-as-new,
    // whose next run declares AUTO_UPGRADE itself).
    if (notFound(error)) return false;
    throw error;
  }
}

function notFound(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  return (error as { code?: unknown }).code === 5; /* grpc NOT_FOUND */
}
