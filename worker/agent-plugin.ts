import { SimplePlugin } from '@temporalio/plugin';
import type { ClientOptions } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { BundleOptions, ReplayWorkerOptions, Worker, WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import { defaultScratchRoot } from '../activities/scratch/scratch-root';
import type { AttachmentStore } from '../storage/attachment-store';
import type { TranscriptStore } from '../storage/transcript/transcript-store';
import type { AgentRegistry, Definitions } from '../agents/registry';
import type { ModelProvider } from '../providers';
import type { PriceTable } from '../core/cost';
import { McpConnections } from '../mcp/connections';
import { loadPrices } from '../pricing/load-prices';
import { agentDataConverter } from '../storage/data-converter';
import { untracedSpans } from '../telemetry/agent-spans';
import { startTracing, type Tracing } from '../telemetry/tracing';
import { ConfigurationError } from '../core/errors';
import { assertBundleTraces } from './bundle-tracing';
import { addFeatureAgents, createFeatureActivities, createWorkerRegistry } from './features';
import { withSharedWorkflowModules } from './shared-workflow-modules';
import { defaultWorkspaceRoot } from './settings';
import { checkVersioning, versioningFromEnv, workerDeploymentOptions, type WorkerVersioning } from './versioning';
import {
  checkProviderQueues,
  providerQueueNames,
  providerQueuesFromEnv,
  withProviderQueueWorkers,
  type ProviderQueues,
} from './provider-queues';

/** The worker's workflow bundle entry: the agent's workflows and the features' (./workflows.ts). */
export const workflowsPath = require.resolve('./workflows');

/**
 * prepareRun's answer with the provider queues added: recorded in history with the rest of the run's setup, so the
 * workflow schedules each provider's model calls on its queue, and a replay schedules them where the run did.
 */
function withModelQueues<Activities extends ReturnType<typeof createActivities>>(
  activities: Activities,
  names: () => Record<string, string>,
): Activities {
  const { prepareRun } = activities;
  return {
    ...activities,
    prepareRun: async (input: Parameters<typeof prepareRun>[0]) => {
      const setup = await prepareRun(input);
      const modelQueues = names();
      return Object.keys(modelQueues).length > 0 ? { ...setup, modelQueues } : setup;
    },
  };
}

/** Whether the environment has what the provider needs to be called (its API key, say). */
function canCall(provider: ModelProvider, env: NodeJS.ProcessEnv): boolean {
  try {
    provider.checkEnvironment?.(env);
    return true;
  } catch {
    return false;
  }
}

export interface AgentPluginOptions extends Definitions {
  /** The agents, tools and providers, already checked together; by default made from `agents`, `tools` and `providers`. */
  registry?: AgentRegistry;
  /** The environment the model activity reads API keys and base URLs from, and tracing its OTEL_* settings (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Every workspace a run may name lies inside it (default: AGENT_WORKSPACE_ROOT, else the working directory). */
  workspaceRoot?: string;
  /**
   * Where eval runs get their scratch copies of a workspace (makeScratchWorkspace, docs/evals-tools.md). Default:
   * AGENT_EVAL_SCRATCH_ROOT, else durable-agent-eval-scratch in the system's temporary directory.
   */
  evalScratchRoot?: string;
  transcripts?: TranscriptStore;
  /** Where messages' images and files are (default: the stores of the environment, beside the payloads). */
  attachments?: AttachmentStore;
  /** Model prices for costs and cost budgets (default: pricing/default-prices.json, then AGENT_PRICES). */
  prices?: PriceTable;
  /**
   * The data converter for workers and clients the plugin configures. By default a worker keeps its own, if it
   * has one (it must then handle large payloads like agentDataConverter()), and otherwise gets agentDataConverter().
   */
  dataConverter?: DataConverter;
  /**
   * OpenTelemetry tracing: on when the environment has OTEL_EXPORTER_OTLP_ENDPOINT (default). `false` keeps the
   * plugin from tracing, e.g. in an app that sets up OpenTelemetry and Temporal's OpenTelemetryPlugin itself.
   */
  tracing?: boolean;
  /**
   * Providers whose model calls run on a task queue of their own, with a requests-per-second limit the server
   * enforces across every worker polling it (worker/provider-queues.ts). Every worker with this plugin polls these
   * queues too. Default: AGENT_PROVIDER_QUEUES (`openai:10,anthropic:4`), else none: model calls stay on the worker's queue.
   */
  providerQueues?: ProviderQueues;
  /**
   * Temporal's Worker Versioning (worker/versioning.ts, docs/upgrades.md): the worker polls as this build of this
   * deployment; one-shot runs stay on the build that started them, sessions move to the current one at a turn
   * boundary. Default: AGENT_DEPLOYMENT_NAME and AGENT_BUILD_ID, else none. `false` turns it off.
   */
  versioning?: WorkerVersioning | false;
}

/**
 * A Temporal worker plugin (`@temporalio/plugin`) that puts durable agents on
 * any worker: the agent workflow (unless the worker has workflows of its own,
 * which then export `agentWorkflow` from `durable-agent/workflow`), the model,
 * setup and tool activities, and the data converter for large payloads and
 * encryption. The definitions are checked when the plugin is made: a bad one
 * fails at worker start, naming the agent and the problem.
 *
 * With OTEL_EXPORTER_OTLP_ENDPOINT set it also traces: Temporal's official
 * OpenTelemetry interceptors on the worker (workflow and activity spans) and on
 * the clients it configures, and a span for each model call and tool call.
 *
 *   Worker.create({ taskQueue, plugins: [new AgentPlugin({ agents: [researcher] })] })
 */
export class AgentPlugin extends SimplePlugin {
  readonly registry: AgentRegistry;
  /** This process's tracing, when it is on. */
  readonly tracing: Tracing | undefined;
  /** The worker deployment this plugin's workers join, when Worker Versioning is on. */
  readonly versioning: WorkerVersioning | undefined;
  private readonly env: NodeJS.ProcessEnv;
  private readonly providerQueues: ProviderQueues | undefined;
  /** The task queue of the worker this plugin configured: the default provider queue names derive from it. */
  private workerTaskQueue: string | undefined;

  constructor(options: AgentPluginOptions = {}) {
    const registry = options.registry ?? createWorkerRegistry(options);
    addFeatureAgents(registry);
    const env = options.env ?? process.env;
    const tracing = options.tracing === false ? undefined : startTracing(env);
    // Stdio MCP servers are the worker's child processes: they start on first use and stop with the worker.
    const mcpConnections = new McpConnections(registry.mcpServers);
    const providerQueues = options.providerQueues ? checkProviderQueues(options.providerQueues) : providerQueuesFromEnv(env);
    const unknownProviders = Object.keys(providerQueues ?? {}).filter((name) => !registry.providers.has(name));
    if (unknownProviders.length > 0) {
      throw new ConfigurationError(
        `provider queues name unknown providers: ${unknownProviders.join(', ')}; this worker has: ${[...registry.providers.keys()].join(', ')}`,
      );
    }
    const roots = {
      workspaceRoot: options.workspaceRoot ?? defaultWorkspaceRoot(),
      scratchRoot: options.evalScratchRoot ?? defaultScratchRoot(env),
    };
    const activities = {
      ...createActivities({
        registry,
        env,
        workspaceRoot: roots.workspaceRoot,
        evalScratchRoot: roots.scratchRoot,
        transcripts: options.transcripts,
        attachments: options.attachments,
        prices: options.prices ?? loadPrices(env),
        spans: tracing?.spans ?? untracedSpans,
        mcpConnections,
      }),
      ...createFeatureActivities(registry, roots, env),
    };
    // Known once configureWorker has seen the worker's task queue: read when prepareRun runs.
    const modelQueues = { names: (): Record<string, string> => ({}) };
    super({
      name: 'durable-agent',
      activities: providerQueues ? withModelQueues(activities, () => modelQueues.names()) : activities,
      runContext: async (run) => {
        try {
          await run();
        } finally {
          await mcpConnections.close();
        }
      },
      dataConverter: options.dataConverter ?? ((existing?: DataConverter) => existing ?? agentDataConverter()),
    });
    this.registry = registry;
    this.tracing = tracing;
    this.versioning =
      options.versioning === false
        ? undefined
        : options.versioning
          ? checkVersioning(options.versioning)
          : versioningFromEnv(env);
    this.env = env;
    this.providerQueues = providerQueues;
    modelQueues.names = () => this.modelQueueNames();
  }

  /** Provider to task queue, for prepareRun to record: the workflow schedules each model call on its provider's queue. */
  private modelQueueNames(): Record<string, string> {
    if (!this.providerQueues || !this.workerTaskQueue) return {};
    return providerQueueNames(this.providerQueues, this.workerTaskQueue);
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    // A worker that brings no workflows of its own runs the agent workflow.
    const withWorkflows = options.workflowsPath || options.workflowBundle ? options : { ...options, workflowsPath };
    // Deployment options the worker was given win: the plugin only fills them in.
    const versioned =
      this.versioning && !withWorkflows.workerDeploymentOptions
        ? { ...withWorkflows, workerDeploymentOptions: workerDeploymentOptions(this.versioning, withWorkflows.workflowBundle) }
        : withWorkflows;
    this.workerTaskQueue = options.taskQueue;
    const configured = super.configureWorker(versioned);
    if (!this.tracing) return configured;
    if (configured.workflowBundle) assertBundleTraces(configured.workflowBundle);
    return this.tracing.temporalPlugin.configureWorker(configured);
  }

  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    const configured = super.configureReplayWorker(options);
    return this.tracing ? this.tracing.temporalPlugin.configureReplayWorker(configured) : configured;
  }

  override configureBundler(options: BundleOptions): BundleOptions {
    // core/'s pure modules are evaluated once per worker, not once per workflow (worker/shared-workflow-modules.ts).
    const configured = super.configureBundler(withSharedWorkflowModules(options));
    return this.tracing ? this.tracing.temporalPlugin.configureBundler(configured) : configured;
  }

  override configureClient(options: ClientOptions): ClientOptions {
    const configured = super.configureClient(options);
    return this.tracing ? this.tracing.temporalPlugin.configureClient(configured) : configured;
  }

  /** Sends the worker's last spans (the run that finished as it drained) before run() resolves. */
  override async runWorker(worker: Worker, next: (worker: Worker) => Promise<void>): Promise<void> {
    // While the worker polls for its first tasks (and a first run's workflow task and prepareRun go by), this
    // thread has time to load the provider SDKs the first model call would otherwise wait for (~150 ms for
    // OpenAI's): those this worker's environment can call. Not earlier: during Worker.create it competes with
    // the workflow threads' start (measured: +220 ms there, bench/NOTES.md).
    for (const provider of this.registry.providers.values()) {
      // A preload that fails (or throws) is left to the first call to report.
      if (provider.preload && canCall(provider, this.env))
        Promise.resolve()
          .then(() => provider.preload!())
          .catch(() => {});
    }
    try {
      if (this.providerQueues) await withProviderQueueWorkers(worker, this.providerQueues, () => super.runWorker(worker, next));
      else await super.runWorker(worker, next);
    } finally {
      await this.tracing?.flush();
    }
  }
}
