import type { AgentRegistry } from '../agents/registry';
import type { PriceTable } from '../core/cost';
import { loadPrices } from '../pricing/load-prices';
import { agentStores } from '../storage/stores';
import { untracedSpans, type AgentSpans } from '../telemetry/agent-spans';
import { createModelActivities } from './model/call-model';
import { createPrepareRun } from './prepare-run';
import { toolActivity } from './tool-activity';
import type { TranscriptStore } from './transcript/transcript-store';

export type { ModelCallInput, ModelTurn, TranscriptInput } from './model/model-input';
export type { PrepareRunInput, RunSetup } from './prepare-run';
export type { ToolActivityInput } from './tool-activity';

export interface ActivityOptions {
  /** The agents, tools and providers this worker has. */
  registry: AgentRegistry;
  /** The environment the model activity reads API keys and base URLs from. */
  env?: NodeJS.ProcessEnv;
  transcripts?: TranscriptStore;
  /** Every workspace a run may use lies inside this directory. */
  workspaceRoot: string;
  /** Model prices (default: pricing/default-prices.json and AGENT_PRICES). */
  prices?: PriceTable;
  /** Spans around model calls and tool calls (OpenTelemetry); none by default. */
  spans?: AgentSpans;
}

/**
 * Every activity a worker registers: the model call, the run setup check, and
 * one activity per tool, named after the tool so each is visible in the Web UI.
 */
export function createActivities(options: ActivityOptions) {
  const { registry } = options;
  const prices = options.prices ?? loadPrices();
  const spans = options.spans ?? untracedSpans;
  const toolActivities = Object.fromEntries([...registry.tools.values()].map((tool) => [tool.name, toolActivity(tool, options.workspaceRoot, spans)]));
  return {
    ...toolActivities,
    ...createModelActivities({
      registry,
      env: options.env ?? process.env,
      transcripts: options.transcripts ?? agentStores().transcripts,
      prices,
      spans,
    }),
    prepareRun: createPrepareRun(registry, options.workspaceRoot, prices),
  };
}

/** The activities the workflow calls by fixed name; tools are called by their dynamic names. */
export type CoreActivities = ReturnType<typeof createModelActivities> & { prepareRun: ReturnType<typeof createPrepareRun> };
