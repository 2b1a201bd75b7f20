import type { SearchAttributePair, VersioningBehavior } from '@temporalio/common';
import { patched, setWorkflowOptions, workflowInfo, type WorkflowInfo } from '@temporalio/workflow';

/**
 * Worker Versioning for the agent workflow (docs/upgrades.md). Both kinds of run are one workflow type, so the
 * behaviour is chosen per run, from the memo the client starts a run with (Temporal reads it before the workflow's
 * arguments are decoded, which is when the behaviour must be known):
 * - a one-shot run is PINNED: it finishes on the build that started it, whatever is deployed meanwhile;
 * - a session is AUTO_UPGRADE: its next workflow task goes to the deployment's current build, and at the next turn
 *   boundary it continues as new there, so the new build's agents, tools and workflow code answer its next turn.
 * A run started without the memo (a client that is not startAgent's) is pinned: never replayed on other code.
 * On a worker without versioning none of this has any effect.
 */

/** The memo field that says what kind of run this is; its value is one of `runKinds`. */
export const runKindMemoField = 'durableAgentRun';
export const runKinds = { session: 'session', oneShot: 'one-shot' } as const;

/** The patch that lets a session continue as new when its build changed: histories from before it never did. */
export const upgradeAtTurnBoundaryPatch = 'session-upgrade-at-turn-boundary';

export function versioningBehaviorOf(info: Pick<WorkflowInfo, 'memo'>): VersioningBehavior {
  return info.memo?.[runKindMemoField] === runKinds.session ? 'AUTO_UPGRADE' : 'PINNED';
}

/**
 * Gives `workflow` its per-run versioning behaviour (read once per run, before the workflow function starts). Only on
 * a versioned worker: the server refuses a workflow task that names a behaviour from an unversioned one.
 */
export function declareVersioningBehavior(workflow: (...args: never[]) => Promise<unknown>): void {
  setWorkflowOptions(() => {
    const info = workflowInfo();
    return info.currentDeploymentVersion?.deploymentName ? { versioningBehavior: versioningBehaviorOf(info) } : {};
  }, workflow);
}

/**
 * The worker deployment version running this workflow task ("name:build"), undefined on an unversioned worker (whose
 * build id the SDK makes up per worker, with no deployment name: it says nothing about the code).
 * Deterministic: on replay it is the version recorded with each task.
 */
export function currentBuild(): string | undefined {
  const version = workflowInfo().currentDeploymentVersion;
  return version?.deploymentName ? `${version.deploymentName}:${version.buildId}` : undefined;
}

/**
 * Whether this run moved to another build since `preparedOn` (the build that ran its setup), and should continue
 * as new so that the new build's agents and tools take over. Only an auto-upgrading run ever moves.
 */
export function movedToAnotherBuild(preparedOn: string | undefined): boolean {
  const now = currentBuild();
  return now !== undefined && now !== preparedOn && patched(upgradeAtTurnBoundaryPatch);
}

/**
 * What a continue-as-new hands the next run besides its input: the memo and search attributes this run has, whole.
 * Temporal copies neither by itself (the next run gets what the command names), and a list of fields to copy drops
 * whatever a caller or a later feature adds: durable-agent/web's session owner was lost that way. A run's memo is its
 * caller's (and upsertMemo's, which workflowInfo() follows), so all of it goes on; nothing in it describes one run.
 */
export function carriedRunAttributes(): { memo?: Record<string, unknown>; typedSearchAttributes?: SearchAttributePair[] } {
  const memo = carriedMemo();
  const searchAttributes = carriedSearchAttributes();
  return { ...(memo && { memo }), ...(searchAttributes.length > 0 && { typedSearchAttributes: searchAttributes }) };
}

/** The memo a continue-as-new passes on: all of it (a session's kind, a web session's owner, a caller's own fields). */
export function carriedMemo(): Record<string, unknown> | undefined {
  const memo = workflowInfo().memo;
  return memo && Object.keys(memo).length > 0 ? { ...memo } : undefined;
}

/**
 * The search attributes a continue-as-new passes on: every one the caller set or the run upserted (`forkedFrom`, a
 * tenant's own), but not those Temporal keeps per run itself, which must change with the run rather than freeze:
 * the patches it used (TemporalChangeVersion), the builds that ran it (BuildIds, BinaryChecksums), its schedule's
 * start time, and the deployment attributes the server refuses in a continue-as-new command.
 */
export function carriedSearchAttributes(): SearchAttributePair[] {
  return workflowInfo()
    .typedSearchAttributes.getAll()
    .filter((pair) => !perRunSearchAttribute(pair.key.name));
}

function perRunSearchAttribute(name: string): boolean {
  return name.startsWith('Temporal') || ['BuildIds', 'BinaryChecksums', 'BatcherNamespace', 'BatcherUser'].includes(name);
}
