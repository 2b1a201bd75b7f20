import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { WorkerDeploymentOptions, WorkerOptions } from '@temporalio/worker';
import { ConfigurationError } from '../core/errors';

/**
 * Temporal's Worker Versioning for an agent worker: the worker belongs to a deployment and polls as one version
 * of it (a build id). The server then sends a pinned run's tasks only to its own version, and an auto-upgrading
 * run's tasks to the deployment's current version. docs/upgrades.md tells the rollout.
 */
export interface WorkerVersioning {
  /** The Worker Deployment: one name for every build of this service (AGENT_DEPLOYMENT_NAME). */
  deploymentName: string;
  /**
   * This build (AGENT_BUILD_ID), e.g. the commit. Default: derived from the workflow bundle's hash, which changes
   * with the workflow code only: give one when agents, tools or providers change too (docs/upgrades.md).
   */
  buildId?: string;
}

/** Temporal joins a deployment name and a build id with either of these in a version's name; neither may appear in a name. */
const delimiters = ['.', ':'];
/** Temporal's limit on a build id, and the one this project keeps for a deployment name. */
const maxLength = 255;

/** Checks a deployment name and build id as the server would, so a bad one fails at worker start, naming the setting. */
export function checkVersioning(
  versioning: WorkerVersioning,
  names = { deployment: 'deploymentName', build: 'buildId' },
): WorkerVersioning {
  const { deploymentName, buildId } = versioning;
  if (typeof deploymentName !== 'string' || !deploymentName.trim())
    throw new ConfigurationError(`${names.deployment} must name the worker deployment`);
  if (delimiters.some((delimiter) => deploymentName.includes(delimiter)))
    throw new ConfigurationError(`${names.deployment} "${deploymentName}" must not contain "." or ":"`);
  if (deploymentName.length > maxLength)
    throw new ConfigurationError(`${names.deployment} is ${deploymentName.length} characters; at most ${maxLength} are accepted`);
  if (buildId !== undefined) {
    if (typeof buildId !== 'string' || !buildId.trim()) throw new ConfigurationError(`${names.build} must not be empty`);
    if (buildId.length > maxLength)
      throw new ConfigurationError(`${names.build} is ${buildId.length} characters; at most ${maxLength} are accepted`);
  }
  return versioning;
}

/** AGENT_DEPLOYMENT_NAME and AGENT_BUILD_ID; undefined (no versioning) without a deployment name. */
export function versioningFromEnv(env: NodeJS.ProcessEnv): WorkerVersioning | undefined {
  const deploymentName = env.AGENT_DEPLOYMENT_NAME;
  const buildId = env.AGENT_BUILD_ID;
  if (!deploymentName) {
    // A build id alone would be silently ignored: the worker would poll unversioned while its operator thinks otherwise.
    if (buildId) throw new ConfigurationError('AGENT_BUILD_ID is set but AGENT_DEPLOYMENT_NAME is not: set both, or neither');
    return undefined;
  }
  return checkVersioning(
    { deploymentName, ...(buildId && { buildId }) },
    { deployment: 'AGENT_DEPLOYMENT_NAME', build: 'AGENT_BUILD_ID' },
  );
}

/**
 * A build id for this workflow code: a hash of the bundle, so two workers with the same bundle are the same version
 * and any change to the workflow code (ours, a user's, an interceptor) makes a new one. Undefined when the worker is
 * given no bundle (only a workflows path, bundled inside Worker.create).
 */
export function bundleBuildId(bundle: WorkerOptions['workflowBundle']): string | undefined {
  if (!bundle) return undefined;
  const code = 'code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8');
  return `bundle-${createHash('sha256').update(code).digest('hex').slice(0, 20)}`;
}

/**
 * The worker's deployment options. Workflows that declare no behaviour are pinned: they finish on the code that
 * started them, the safe choice for code nobody made replay-safe. The agent workflow declares its own
 * (workflows/versioning-behavior.ts): one-shot runs pinned, sessions auto-upgrading.
 */
export function workerDeploymentOptions(
  versioning: WorkerVersioning,
  bundle: WorkerOptions['workflowBundle'],
): WorkerDeploymentOptions {
  const buildId = versioning.buildId ?? bundleBuildId(bundle);
  if (!buildId)
    throw new ConfigurationError(
      `worker deployment "${versioning.deploymentName}" needs a build id: set AGENT_BUILD_ID (the plugin's versioning.buildId), or give the worker a prebuilt workflowBundle to derive it from`,
    );
  return {
    version: { deploymentName: versioning.deploymentName, buildId },
    useWorkerVersioning: true,
    defaultVersioningBehavior: 'PINNED',
  };
}
