import type { AgentRegistry } from '../agents/registry';
import type { PriceTable } from '../core/cost';
import { McpConnections } from '../mcp/connections';
import { loadPrices } from '../pricing/load-prices';
import { agentStores } from '../storage/stores';
import { untracedSpans, type AgentSpans } from '../telemetry/agent-spans';
import { createListMcpTools } from './mcp/list-tools-activity';
import { McpCatalog } from '../mcp/catalog';
import { mcpToolActivity } from './mcp/call-tool-activity';
import { createModelActivities } from './model/call-model';
import { createPrepareRun } from './prepare-run';
import { toolActivity } from './tool-activity';
import { createCheckGuardrail } from './guardrails/check-guardrail';
import { defaultScratchRoot } from './scratch/scratch-root';
import type { AttachmentStore } from '../storage/attachment-store';
import type { TranscriptStore } from '../storage/transcript/transcript-store';

export type { ModelCallInput, ModelCallResult, TranscriptInput } from './model/model-input';
export type { PrepareRunInput, RunSetup, ToolRunSettings } from './prepare-run';
export type { McpToolsListed } from './mcp/list-tools-activity';
export type { ToolActivityInput } from './tool-activity';

export interface ActivityOptions {
  /** The agents, tools and providers this worker has. */
  registry: AgentRegistry;
  /** The environment the model activity reads API keys and base URLs from. */
  env?: NodeJS.ProcessEnv;
  transcripts?: TranscriptStore;
  /** Where messages' images and files are (default: the stores of the environment, beside the payloads). */
  attachments?: AttachmentStore;
  /** Every workspace a run may use lies inside this directory. */
  workspaceRoot: string;
  /**
   * Where eval runs get their scratch copies of a workspace (./scratch/scratch-root.ts; default: AGENT_EVAL_SCRATCH_ROOT
   * of `env`, else one in the system's temporary directory). Only an eval's run may use a workspace there.
   */
  evalScratchRoot?: string;
  /** Model prices (default: pricing/default-prices.json and AGENT_PRICES). */
  prices?: PriceTable;
  /** Spans around model calls and tool calls (OpenTelemetry); none by default. */
  spans?: AgentSpans;
  /** The connections to the registry's MCP servers (whoever owns them closes them when the worker stops). */
  mcpConnections?: McpConnections;
}

/**
 * The agent run's activities: the model call, the run setup check, the MCP
 * listing, and one activity per tool, named after the tool so each is visible
 * in the Web UI. MCP tools are known only once a run lists them: with MCP
 * servers, the worker's default activity runs them under their own names. The
 * features' activities (evals') are added by the worker (worker/features.ts).
 */
export function createActivities(options: ActivityOptions) {
  const { registry } = options;
  const prices = options.prices ?? loadPrices();
  const spans = options.spans ?? untracedSpans;
  const roots = { workspaceRoot: options.workspaceRoot, scratchRoot: options.evalScratchRoot ?? defaultScratchRoot(options.env) };
  // Built only when needed: a worker given its transcript store builds its attachment store at the first attachment.
  let stores: ReturnType<typeof agentStores> | undefined;
  const environmentStores = () => (stores ??= agentStores());
  const attachments: AttachmentStore = options.attachments ?? {
    put: (bytes) => environmentStores().attachments.put(bytes),
    get: (ref) => environmentStores().attachments.get(ref),
  };
  const toolActivities = Object.fromEntries(
    // A tool the workflow runs itself (a timer, a wait: Tool's inWorkflow) has no activity to register.
    [...registry.tools.values()]
      .filter((tool) => !tool.inWorkflow)
      .map((tool) => [tool.name, toolActivity(tool, roots, spans, attachments)]),
  );
  const connections = options.mcpConnections ?? new McpConnections(registry.mcpServers);
  const catalog = new McpCatalog();
  return {
    ...toolActivities,
    ...(connections.names.length > 0 && { default: mcpToolActivity(connections, spans, attachments) }),
    ...createModelActivities({
      registry,
      env: options.env ?? process.env,
      transcripts: options.transcripts ?? environmentStores().transcripts,
      attachments,
      prices,
      spans,
      mcpCatalog: catalog,
    }),
    prepareRun: createPrepareRun(registry, roots, prices),
    listMcpTools: createListMcpTools(registry, connections, catalog),
    checkGuardrail: createCheckGuardrail(registry),
  };
}

/** The activities the workflow calls by fixed name; tools are called by their dynamic names. */
export type CoreActivities = ReturnType<typeof createModelActivities> & {
  prepareRun: ReturnType<typeof createPrepareRun>;
  listMcpTools: ReturnType<typeof createListMcpTools>;
  checkGuardrail: ReturnType<typeof createCheckGuardrail>;
};
