import { SimplePlugin } from '@temporalio/plugin';
import { heartbeatIntervalMs } from '../activities/heartbeating';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import type { TranscriptStore } from '../storage/transcript/transcript-store';
import type { AgentRegistry, Definitions } from '../agents/registry';
import { ConfigurationError } from '../core/errors';
import { agentDataConverter } from '../storage/data-converter';
import { assertWorkspaceDirectory } from '../tools/workspace';
import { AgentPlugin, workflowsPath } from './agent-plugin';
import { cachedWorkflowBundle } from './bundle-cache';
import { defaultWorkspaceRoot, workflowCacheSize } from './settings';
import { sharedWorkflowModules } from './shared-workflow-modules';
import type { ProviderQueues } from './provider-queues';
import type { WorkerVersioning } from './versioning';

export { workflowsPath } from './agent-plugin';

export interface AgentWorkerOptions extends Definitions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** The agents, tools and providers, already checked together (else made from `agents`, `tools`, `providers`). */
  registry?: AgentRegistry;
  /** The environment the model activity reads API keys and base URLs from. */
  env?: NodeJS.ProcessEnv;
  /**
   * A prebuilt bundle (tests build one once). By default AGENT_WORKFLOW_BUNDLE names one,
   * or the workflows are bundled at start-up (a few seconds).
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Without a prebuilt bundle, keep the agent workflow's bundle in this directory and reuse it while its sources are
   * unchanged (worker/bundle-cache.ts): the CLI's own worker starts in a fraction of a second instead of seconds.
   */
  workflowBundleCache?: string;
  /**
   * Every workspace a client may name must lie inside this directory; anything
   * outside is refused before any model call. Default: AGENT_WORKSPACE_ROOT, else
   * the worker's working directory.
   */
  workspaceRoot?: string;
  /** Where eval runs get their scratch copies of a workspace (default: AGENT_EVAL_SCRATCH_ROOT, else one in the temporary directory). */
  evalScratchRoot?: string;
  transcripts?: TranscriptStore;
  /** Activities that replace the built-in ones by name, e.g. the benchmarks' load model as callModel (bench/support/load-model.ts). */
  activityOverrides?: Record<string, (...args: never[]) => Promise<unknown>>;
  /**
   * Providers whose model calls run on a task queue of their own with a server-enforced requests-per-second limit
   * (worker/provider-queues.ts); this worker polls those queues too. Default: AGENT_PROVIDER_QUEUES of `env`.
   */
  providerQueues?: ProviderQueues;
  /**
   * Worker Versioning (worker/versioning.ts): default AGENT_DEPLOYMENT_NAME and AGENT_BUILD_ID of `env`; `false`
   * polls unversioned whatever the environment says (the CLI's own worker, unless told: cli/own-worker-versioning.ts).
   */
  versioning?: WorkerVersioning | false;
  /** Extra worker options, e.g. maxCachedWorkflows: 0 to force replay in tests. */
  overrides?: Partial<WorkerOptions>;
}

/**
 * The one place this project assembles a worker (`npm run worker`, the CLI's
 * own worker, the tests): a Temporal worker with the AgentPlugin. The built-in
 * agents, tools and providers are always there; `agents`, `tools` and
 * `providers` are registered beside them.
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const workspaceRoot = options.workspaceRoot ?? defaultWorkspaceRoot();
  // AGENT_WORKER_MEMORY_MB sizes the workflow cache to the worker's memory (a bad value fails here, before any polling).
  const maxCachedWorkflows = workflowCacheSize(options.env ?? process.env);
  await assertWorkspaceDirectory(workspaceRoot).catch(() => {
    throw new ConfigurationError(`the workspace root "${workspaceRoot}" (AGENT_WORKSPACE_ROOT) is not an existing directory`);
  });
  const prebuilt = process.env.AGENT_WORKFLOW_BUNDLE;
  const plugin = new AgentPlugin({ ...options, env: options.env ?? process.env, workspaceRoot });
  const workflowBundle =
    options.workflowBundle ??
    (prebuilt
      ? { codePath: prebuilt }
      : options.workflowBundleCache
        ? await cachedWorkflowBundle({
            directory: options.workflowBundleCache,
            workflowsPath,
            plugins: [plugin],
            // Bundles that preload other shared modules are other bundles (the list is not one of webpack's inputs).
            variant: [plugin.tracing ? 'tracing' : 'plain', ...sharedWorkflowModules].join('\n'),
            logger: Runtime.instance().logger,
          })
        : // A versioned worker without a build id derives one from its bundle (worker/versioning.ts): bundle now.
          plugin.versioning && !plugin.versioning.buildId
          ? await bundleWorkflowCode({ workflowsPath, plugins: [plugin], logger: Runtime.instance().logger })
          : undefined);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(workflowBundle && { workflowBundle }),
    dataConverter: options.overrides?.dataConverter ?? agentDataConverter(),
    // Plugins apply in order, each one's activities over the last: an override (the bench's load model) replaces the real one.
    plugins: [
      plugin,
      ...(options.activityOverrides
        ? [new SimplePlugin({ name: 'activity-overrides', activities: options.activityOverrides })]
        : []),
    ],
    // Cancellation reaches an activity in a heartbeat response; a short throttle delivers it within seconds. The
    // activities heartbeat at the same interval (activities/heartbeating.ts says why).
    maxHeartbeatThrottleInterval: heartbeatIntervalMs,
    ...(maxCachedWorkflows !== undefined && { maxCachedWorkflows }),
    ...options.overrides,
  });
}
