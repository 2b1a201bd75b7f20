import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import { agentDataConverter } from '../storage/data-converter';
import { ConfigurationError } from '../core/errors';
import { builtInTools, type Tool } from '../tools';
import { assertWorkspaceDirectory } from '../tools/workspace';
import { defaultWorkspaceRoot } from './settings';

export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  tools?: Tool[];
  /** The environment the model activity reads API keys and base URLs from. */
  env?: NodeJS.ProcessEnv;
  /**
   * A prebuilt bundle (tests build one once). By default AGENT_WORKFLOW_BUNDLE names one,
   * or the workflows are bundled at start-up (a few seconds).
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Every workspace a client may name must lie inside this directory; anything
   * outside is refused before any model call. Default: AGENT_WORKSPACE_ROOT, else
   * the worker's working directory.
   */
  workspaceRoot?: string;
  /** Activities that replace the built-in ones by name, e.g. a scripted callModel in workflow tests. */
  activityOverrides?: Record<string, (...args: never[]) => Promise<unknown>>;
  /** Extra worker options, e.g. maxCachedWorkflows: 0 to force replay in tests. */
  overrides?: Partial<WorkerOptions>;
}

export const workflowsPath = require.resolve('../workflows');

/** The one place a worker is assembled: used by `npm run worker`, the embedded CLI mode and the tests. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const workspaceRoot = options.workspaceRoot ?? defaultWorkspaceRoot();
  await assertWorkspaceDirectory(workspaceRoot).catch(() => {
    throw new ConfigurationError(`the workspace root "${workspaceRoot}" (AGENT_WORKSPACE_ROOT) is not an existing directory`);
  });
  const prebuilt = process.env.AGENT_WORKFLOW_BUNDLE;
  const workflowBundle = options.workflowBundle ?? (prebuilt ? { codePath: prebuilt } : undefined);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(workflowBundle ? { workflowBundle } : { workflowsPath }),
    dataConverter: agentDataConverter(),
    // Cancellation reaches an activity in a heartbeat response; a short throttle delivers it within seconds.
    maxHeartbeatThrottleInterval: '2s',
    activities: {
      ...createActivities({ tools: options.tools ?? builtInTools, env: options.env ?? process.env, workspaceRoot }),
      ...options.activityOverrides,
    },
    ...options.overrides,
  });
}
