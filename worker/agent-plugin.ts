import { SimplePlugin } from '@temporalio/plugin';
import type { DataConverter } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { TranscriptStore } from '../activities/transcript/transcript-store';
import { createAgentRegistry, type AgentRegistry, type Definitions } from '../agents/registry';
import type { PriceTable } from '../core/cost';
import { McpConnections } from '../mcp/connections';
import { loadPrices } from '../pricing/load-prices';
import { agentDataConverter } from '../storage/data-converter';
import { defaultWorkspaceRoot } from './settings';

export const workflowsPath = require.resolve('../workflows');

export interface AgentPluginOptions extends Definitions {
  /** The agents, tools and providers, already checked together; by default made from `agents`, `tools` and `providers`. */
  registry?: AgentRegistry;
  /** The environment the model activity reads API keys and base URLs from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Every workspace a run may name lies inside it (default: AGENT_WORKSPACE_ROOT, else the working directory). */
  workspaceRoot?: string;
  transcripts?: TranscriptStore;
  /** Model prices for costs and cost budgets (default: pricing/default-prices.json, then AGENT_PRICES). */
  prices?: PriceTable;
  /**
   * The data converter for workers and clients the plugin configures. By default a worker keeps its own, if it
   * has one (it must then handle large payloads like agentDataConverter()), and otherwise gets agentDataConverter().
   */
  dataConverter?: DataConverter;
}

/**
 * A Temporal worker plugin (`@temporalio/plugin`) that puts durable agents on
 * any worker: the agent workflow (unless the worker has workflows of its own,
 * which then export `agentWorkflow` from `durable-agent/workflow`), the model,
 * setup and tool activities, and the data converter for large payloads and
 * encryption. The definitions are checked when the plugin is made: a bad one
 * fails at worker start, naming the agent and the problem.
 *
 *   Worker.create({ taskQueue, plugins: [new AgentPlugin({ agents: [researcher] })] })
 */
export class AgentPlugin extends SimplePlugin {
  readonly registry: AgentRegistry;

  constructor(options: AgentPluginOptions = {}) {
    const registry = options.registry ?? createAgentRegistry(options);
    // Stdio MCP servers are the worker's child processes: they start on first use and stop with the worker.
    const mcpConnections = new McpConnections(registry.mcpServers);
    super({
      name: 'durable-agent',
      activities: createActivities({
        registry,
        env: options.env ?? process.env,
        workspaceRoot: options.workspaceRoot ?? defaultWorkspaceRoot(),
        transcripts: options.transcripts,
        prices: options.prices ?? loadPrices(options.env ?? process.env),
        mcpConnections,
      }),
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
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    const configured = super.configureWorker(options);
    // A worker that brings no workflows of its own runs the agent workflow.
    if (!configured.workflowsPath && !configured.workflowBundle) return { ...configured, workflowsPath };
    return configured;
  }
}
