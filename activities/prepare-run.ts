import { ApplicationFailure } from '@temporalio/common';
import type { AgentRegistry } from '../agents/registry';
import type { AgentSpec, ApprovalPolicy, ModelSettings } from '../core/agent-spec';
import { combinedPolicy, policyProblems } from '../core/approval-policy';
import { ownerHash } from './owner-hash';
import { mergeModelSettings, withSettingsFolded, type OlderSettings } from '../core/model-settings';
import { ConfigurationError, failureTypes } from '../core/errors';
import { priceOf, type ModelPrice, type PriceTable } from '../core/cost';
import type { McpListing, McpToolOrigin, McpToolRequest } from '../mcp/types';
import { parseModelId } from '../core/model-id';
import type { InWorkflowSettings, Tool, ToolActivitySettings } from '../tools/define-tool';
import { pathArgumentsOf } from '../tools/path-argument';
import { assertWorkspaceDirectory } from '../tools/workspace';
import type { UnrecordedToolPolicy } from '../core/eval-types';
import { assertRunWorkspace, rootsOf, type WorkspaceRoots } from './scratch/run-workspace';
import { timingMark } from '../telemetry/startup-timing';

export interface PrepareRunInput {
  agent: string;
  /**
   * The run's own settings that override the entry agent's (the CLI's --model, --system, --tools, --max-iterations,
   * and its model settings flags). The older fields of OlderSettings are how workflows of earlier code asked, and a
   * prepareRun they scheduled may still run on this worker: they are folded into modelSettings.
   */
  overrides: {
    model?: string;
    systemPrompt?: string;
    tools?: string[];
    maxIterations?: number;
    modelSettings?: ModelSettings;
  } & OlderSettings;
  workspace: string;
  /** The run has a cost budget: every model it may use must have a price. */
  budgeted?: boolean;
  /**
   * The tools whose calls wait for a person's approval in this run (the CLI's --approve-tools), added to each
   * agent's own approveTools: checked like tools (an unknown name fails the run) and expanded like them
   * (`mcp:*`, `mcp:<server>`), here and by listMcpTools.
   */
  approveTools?: string[];
  /**
   * The operator's approval policy for this run (input.approval.policy): checked against the tools of the run's
   * agents (a rule that can never match fails the run), and put before each agent's own rules.
   */
  policy?: ApprovalPolicy;
  /** An eval's run (input.evalTools): with `scratch`, its workspace must be a scratch copy (./scratch/run-workspace.ts). */
  evalTools?: UnrecordedToolPolicy;
}

/**
 * How the workflow schedules one tool: its activity settings, and for an MCP tool, the server and tool it calls.
 * `paths` names its arguments that are paths in the workspace (tools/path-argument.ts): the run shows them resolved,
 * on the stream and in the activity's summary (absent in the setups of older runs, and for tools with none).
 */
export type ToolRunSettings = ToolActivitySettings & {
  mcp?: McpToolOrigin;
  paths?: string[];
  inWorkflow?: InWorkflowSettings;
  /** The tool may ask the person mid-call (Tool's `asksPerson`): absent in the setups of older runs. */
  asksPerson?: true;
};

export interface RunSetup {
  /** The agent the run starts with, its overrides applied, and every agent it can reach by handoff or as a subagent. */
  agents: Record<string, AgentSpec>;
  /** Activity settings per tool of those agents, recorded once in history so the workflow can schedule each tool its own way. */
  tools: Record<string, ToolRunSettings>;
  /** The prices of those agents' models, those the worker knows: the cost budget prices the next call's worst case with them. */
  prices: Record<string, ModelPrice>;
  /**
   * The MCP tools those agents name (`mcp:*`, `mcp:<server>`, `<server>_<tool>`), left out of their
   * tools here: the workflow has listMcpTools list them, which puts them back as the names the model sees.
   */
  mcpTools?: McpToolRequest;
  /** The run's MCP tools as listMcpTools recorded them: model calls name it by id. */
  mcpListing?: McpListing;
  /**
   * Provider to task queue, when the worker gives providers queues of their own (worker/provider-queues.ts, added by
   * the AgentPlugin): model calls of those providers are scheduled there. Absent: on the run's own queue.
   */
  modelQueues?: Record<string, string>;
}

/**
 * Checks, once at the start of a run and before any model call, what only the
 * worker can know: that the workspace exists inside the worker's workspace root,
 * and that the agent, its tools and its model's provider are registered. The
 * agents come back as plain data, recorded in history: the run keeps them even
 * if the worker is redeployed with other definitions. Mistakes here are
 * configuration errors and fail the run loudly instead of confusing the model.
 */
export function createPrepareRun(registry: AgentRegistry, workspaceRoot: string | WorkspaceRoots, prices: PriceTable) {
  const roots = rootsOf(workspaceRoot);
  return async function prepareRun(input: PrepareRunInput): Promise<RunSetup> {
    timingMark('prepareRun started');
    try {
      const agents = registry.reachable(input.agent);
      const entry = withOverrides(agents[input.agent], input.overrides);
      agents[input.agent] = entry;
      // The run's settings may break a rule of the model's provider that the agent's own kept (or change the model).
      const settingsProblem = registry.modelSettingsProblem(entry.model, entry.modelSettings);
      if (settingsProblem) throw new ConfigurationError(`agent "${entry.name}": ${settingsProblem}`);
      const unknown = entry.tools.filter((name) => !registry.knowsTool(name));
      if (unknown.length > 0)
        throw new ConfigurationError(`unknown tools: ${unknown.join(', ')}; this worker has: ${registry.describeTools()}`);
      const unapprovable = registry.unknownApprovalNames(input.approveTools ?? []);
      if (unapprovable.length > 0) {
        throw new ConfigurationError(
          `unknown tools to approve: ${unapprovable.join(', ')}; this worker has: ${registry.describeTools()}`,
        );
      }
      if (input.approveTools !== undefined) withRunApprovals(agents, input.approveTools);
      if (input.policy) withRunPolicy(agents, input.policy, registry);
      withPrincipalsHashed(agents);
      const provider = parseModelId(entry.model).provider;
      if (!registry.providers.has(provider)) {
        throw new ConfigurationError(
          `unknown provider "${provider}" in model "${entry.model}"; this worker has: ${[...registry.providers.keys()].join(', ')}`,
        );
      }
      await assertWorkspaceDirectory(input.workspace);
      await assertRunWorkspace(roots, input.workspace, input.evalTools);
      const mcpTools = setAsideMcpReferences(agents, input.agent, registry);
      const toolNames = new Set(Object.values(agents).flatMap((agent) => agent.tools));
      const models = [...new Set(Object.values(agents).map((agent) => agent.model))];
      const unpriced = models.filter((model) => !priceOf(prices, model));
      if ((input.budgeted || entry.maxCostUsd !== undefined) && unpriced.length > 0) {
        throw new ConfigurationError(
          `a cost budget needs the price of every model the run may use, and this worker has none for ${unpriced.join(', ')}; ` +
            'add it to the price table (AGENT_PRICES=./prices.json) or run without a cost budget',
        );
      }
      return {
        agents,
        tools: Object.fromEntries([...toolNames].map((name) => [name, runSettingsOf(registry.tools.get(name)!)])),
        prices: Object.fromEntries(models.flatMap((model) => (priceOf(prices, model) ? [[model, priceOf(prices, model)!]] : []))),
        ...(mcpTools && { mcpTools }),
      };
    } catch (error) {
      throw ApplicationFailure.create({
        type: failureTypes.configuration,
        nonRetryable: true,
        message: (error as Error).message,
      });
    }
  };
}

function runSettingsOf(tool: Tool): ToolRunSettings {
  const paths = pathArgumentsOf(tool);
  return {
    ...tool.activity,
    ...(paths.length > 0 && { paths }),
    ...(tool.inWorkflow && { inWorkflow: tool.inWorkflow }),
    ...(tool.asksPerson && { asksPerson: true }),
  };
}

/**
 * Takes the MCP references out of the agents' tools (they are not tools until
 * the servers are listed) and says which servers to list for the agents that
 * may hold this run's conversation (the first and those it may hand off to; a
 * subagent is a run of its own, which lists its own); none when no such agent
 * names one, or `mcp:*` is all there is and the worker has no servers.
 */
function setAsideMcpReferences(
  agents: Record<string, AgentSpec>,
  first: string,
  registry: AgentRegistry,
): McpToolRequest | undefined {
  const holders = new Set<string>();
  const visit = (name: string) => {
    if (holders.has(name)) return;
    holders.add(name);
    agents[name].handoffs.forEach(visit);
  };
  visit(first);
  const servers = new Set<string>();
  const references: Record<string, string[]> = {};
  const approvals: Record<string, string[]> = {};
  for (const agent of Object.values(agents)) {
    // An approval's MCP references become names with the listing too; until then they match no call.
    const approving = (agent.approveTools ?? []).filter((name) => registry.mcpReference(name) !== undefined);
    if (approving.length > 0) {
      agent.approveTools = agent.approveTools!.filter((name) => !approving.includes(name));
      if (holders.has(agent.name)) approvals[agent.name] = approving;
    }
    const named = agent.tools.filter((name) => registry.mcpReference(name) !== undefined);
    if (named.length === 0) continue;
    agent.tools = agent.tools.filter((name) => !named.includes(name));
    if (!holders.has(agent.name)) continue;
    references[agent.name] = named;
    for (const name of named) {
      const reference = registry.mcpReference(name)!;
      const wanted =
        reference.kind === 'every'
          ? Object.keys(registry.mcpServers)
          : reference.kind === 'server'
            ? [reference.server]
            : reference.servers;
      for (const server of wanted) servers.add(server);
    }
  }
  // Servers are listed for the tools the agents are offered only: a tool that is not offered is never called, so
  // its approval is moot, and listing a server for it alone would start it for nothing.
  if (servers.size === 0) return undefined;
  // In the config's order, so the model sees the tools in the order the config lists the servers.
  return {
    servers: Object.keys(registry.mcpServers).filter((server) => servers.has(server)),
    references,
    ...(Object.keys(approvals).length > 0 && { approvals }),
  };
}

/**
 * The run's own list of tools that need approval applies to every agent of the run, beside each agent's own.
 * Every agent gets a list (an empty one too): a run whose specs carry one follows them, not the raw names.
 */
function withRunApprovals(agents: Record<string, AgentSpec>, runApprovals: string[]): void {
  for (const agent of Object.values(agents)) {
    agent.approveTools = [...new Set([...(agent.approveTools ?? []), ...runApprovals])];
  }
}

/** The run's policy, checked against every tool its agents may call, then put before each agent's own rules. */
function withRunPolicy(agents: Record<string, AgentSpec>, policy: ApprovalPolicy, registry: AgentRegistry): void {
  const names = [...new Set(Object.values(agents).flatMap((agent) => [...agent.tools, ...agent.subagents]))];
  const problems = policyProblems(policy, registry.policyTools(names), registry.namesMcpTools(names));
  if (problems.length > 0) throw new ConfigurationError(`the run's approval policy: ${problems.join('; ')}`);
  for (const agent of Object.values(agents)) agent.policy = combinedPolicy(policy, agent.policy);
}

/** Each rule's principals as the run records its owner (activities/owner-hash.ts): no user's name enters history. */
function withPrincipalsHashed(agents: Record<string, AgentSpec>): void {
  for (const agent of Object.values(agents)) {
    if (!agent.policy?.rules.some((rule) => rule.principals)) continue;
    const rules = agent.policy.rules.map((rule) =>
      rule.principals ? { ...rule, principals: rule.principals.map(ownerHash) } : rule,
    );
    agent.policy = { ...agent.policy, rules };
  }
}

function withOverrides(agent: AgentSpec, given: PrepareRunInput['overrides']): AgentSpec {
  const overrides = withSettingsFolded(given);
  return {
    ...agent,
    ...(overrides.model !== undefined && { model: overrides.model }),
    ...(overrides.systemPrompt !== undefined && { instructions: overrides.systemPrompt }),
    ...(overrides.tools !== undefined && { tools: overrides.tools }),
    ...(overrides.maxIterations !== undefined && { maxIterations: overrides.maxIterations }),
    // The one merge of the agent's settings with the run's.
    modelSettings: mergeModelSettings(agent.modelSettings, overrides.modelSettings),
  };
}
