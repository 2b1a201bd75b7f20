import { ConfigurationError } from '../core/errors';
import { versioningFromEnv, type WorkerVersioning } from '../worker/versioning';

/** The variable that lets the CLI's own worker join the worker deployment AGENT_DEPLOYMENT_NAME and AGENT_BUILD_ID name. */
export const cliWorkerVersioningVariable = 'AGENT_CLI_WORKER_VERSIONING';

/** How the CLI's own worker polls, and what to tell the user about it when the shell names a deployment. */
export interface OwnWorkerVersioning {
  /** `false`: unversioned, whatever AGENT_DEPLOYMENT_NAME says. */
  versioning: WorkerVersioning | false;
  note?: string;
}

/**
 * Whether the worker a CLI command runs in its own process (connect.ts: when no worker polls, or none answers a
 * query within 5 s) joins a Worker Deployment. Never unless AGENT_CLI_WORKER_VERSIONING=1 says so: a shell that
 * deployed a build (AGENT_DEPLOYMENT_NAME and AGENT_BUILD_ID exported) would otherwise make every `agent send` during
 * an incident a worker of that version, with the CLI's code and agents, completing the production runs' workflow tasks
 * (docs/upgrades.md, "The CLI's own worker"). Unversioned, it serves only runs that are unversioned themselves.
 */
export function ownWorkerVersioning(env: NodeJS.ProcessEnv): OwnWorkerVersioning {
  const setting = env[cliWorkerVersioningVariable];
  if (setting === undefined || setting === '' || setting === '0' || setting === 'false') {
    const named = env.AGENT_DEPLOYMENT_NAME;
    return {
      versioning: false,
      ...(named && {
        note: `the worker in this process does not join worker deployment "${named}" (AGENT_DEPLOYMENT_NAME is set; ${cliWorkerVersioningVariable}=1 would let it): it serves unversioned runs only`,
      }),
    };
  }
  if (setting !== '1' && setting !== 'true')
    throw new ConfigurationError(`${cliWorkerVersioningVariable} is "${setting}": use 1 (join the deployment) or 0`);
  const versioning = versioningFromEnv(env);
  if (!versioning)
    throw new ConfigurationError(
      `${cliWorkerVersioningVariable}=${setting} needs AGENT_DEPLOYMENT_NAME (and AGENT_BUILD_ID): the deployment to join`,
    );
  return { versioning };
}
