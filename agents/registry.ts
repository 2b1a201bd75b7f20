import { z } from 'zod';
import type { AgentSpec, ModelSettings } from '../core/agent-spec';
import { handoffToolName, handoffToolPrefix } from '../core/tool-names';
import { didYouMean } from '../core/did-you-mean';
import { mcpSelectorPrefix } from '../mcp/types';
import { ConfigurationError } from '../core/errors';
import { parseModelId } from '../core/model-id';
import { builtInProviders, defineProvider, type ModelProvider, type ToolDefinition } from '../providers';
import { builtInTools, toolJsonSchema, type Tool } from '../tools';
import { parseMcpServers, type McpServerConfig, type McpServerEntry, type McpServers } from '../mcp/config';
import { mcpReference, type McpReference } from '../mcp/names';
import { isGrader, type Grader } from './define-grader';
import { policyProblems, type PolicyToolInfo } from '../core/approval-policy';
import { pathArgumentsOf } from '../tools/path-argument';
import { isGuardrail, type Guardrail } from './define-guardrail';
import type { GuardrailSpec } from '../core/guardrails';
import { defaultAgent } from './default-agent';
import { isAgent, nameOf, type Agent } from './define-agent';

/** What a worker (or the CLI) registers beside the built-in agents, tools and providers. */
export interface Definitions {
  agents?: Agent[];
  tools?: Tool[];
  providers?: ModelProvider[];
  /** Graders of your own (defineGrader), named by evals' `{ type: 'custom', name }` specs. */
  graders?: Grader[];
  /** Guardrails (defineGuardrail) that agents name; those an agent gives by value are registered with it. */
  guardrails?: Guardrail[];
  /**
   * MCP servers, as the `mcpServers` object of the common config format (AGENT_MCP_CONFIG):
   * their tools are offered as `<server>_<tool>`, and tools lists may name them, or `mcp:<server>` and `mcp:*`.
   */
  mcpServers?: Record<string, McpServerEntry | McpServerConfig>;
  /**
   * Tools an agent may name without their being registered (the worker's built-in feature tools: `sleep`,
   * `wait_for_event`, `schedule_run`): one is added when an agent lists its name and no tool of that name is
   * registered otherwise (given by value, or in `tools`), so a definition of your own under the name still wins.
   */
  toolsByName?: Tool[];
}

/** The arguments every subagent takes: the task, as the calling model words it. */
export const subagentParameters = {
  type: 'object',
  properties: { task: { type: 'string', description: 'The task for this agent, with everything it needs to know to do it' } },
  required: ['task'],
  additionalProperties: false,
} as const;

/**
 * Every agent, tool and provider a worker has, by name, checked together once
 * when the worker (or the CLI) starts: a definition that names a tool, agent or
 * provider that is not there fails here, naming the agent and the problem.
 */
export class AgentRegistry {
  readonly agents = new Map<string, Agent>();
  readonly tools = new Map<string, Tool>();
  readonly providers = new Map<string, ModelProvider>();
  readonly graders = new Map<string, Grader>();
  readonly guardrails = new Map<string, Guardrail>();
  /** The MCP servers whose tools runs may use; their tools are known only once a run lists them (listMcpTools). */
  readonly mcpServers: McpServers;
  /** Agents the engine registers for its own runs, not for people to pick (addEngineAgent, listedAgentNames). */
  private readonly engineAgentNames = new Set<string>();

  /**
   * The agents a person chooses from: every agent but those the engine runs for itself (eval-judge, an eval's LLM
   * judge). Those still run by name; they are left out of listings, of `agent mcp`'s tools and of the lists in error
   * messages, where they would only be noise beside the user's own.
   */
  listedAgentNames(): string[] {
    return [...this.agents.keys()].filter((name) => !this.engineAgentNames.has(name));
  }

  /**
   * Adds an agent a feature runs for itself (the evals' judge, which the worker adds: worker/features.ts), checked like
   * any other: it runs by name, and is left out of listedAgentNames. Adding the same agent again changes nothing; an
   * agent of the user's under its name is two agents of one name, refused.
   */
  addEngineAgent(agent: Agent): void {
    this.addAgent(agent);
    this.check(agent);
    this.engineAgentNames.add(agent.name);
  }

  constructor(definitions: Definitions = {}) {
    this.mcpServers = parseMcpServers(definitions.mcpServers ?? {}, { baseDirectory: process.cwd() });
    // A user's provider is checked as defineProvider checks it: an AI SDK model given as it is, say, is refused in words.
    for (const provider of [...builtInProviders, ...(definitions.providers ?? []).map(defineProvider)]) {
      if (this.providers.has(provider.name)) throw new ConfigurationError(`two providers are named "${provider.name}"`);
      this.providers.set(provider.name, provider);
    }
    for (const tool of [...builtInTools, ...(definitions.tools ?? [])]) this.addTool(tool);
    for (const agent of [defaultAgent, ...(definitions.agents ?? [])]) this.addAgent(agent);
    this.addToolsNamed(definitions.toolsByName ?? []);
    for (const grader of definitions.graders ?? []) this.addGrader(grader);
    for (const guardrail of definitions.guardrails ?? []) this.addGuardrail(guardrail);
    for (const agent of this.agents.values()) this.check(agent);
  }

  /** The agent as the workflow runs it (plain data). */
  spec(name: string): AgentSpec {
    const agent = this.agents.get(name);
    if (!agent) throw new ConfigurationError(`unknown agent "${name}"; this worker has: ${this.listedAgentNames().join(', ')}`);
    return {
      name: agent.name,
      description: agent.description,
      instructions: agent.instructions,
      model: agent.model,
      tools: agent.tools.map(nameOf),
      ...(agent.approveTools.length > 0 && { approveTools: agent.approveTools }),
      ...(agent.policy && { policy: agent.policy }),
      subagents: agent.subagents.map(nameOf),
      handoffs: agent.handoffs.map(nameOf),
      maxIterations: agent.maxIterations,
      ...(agent.maxCostUsd !== undefined && { maxCostUsd: agent.maxCostUsd }),
      ...(agent.batch && { batch: true }),
      ...(agent.time && { time: agent.time }),
      modelSettings: agent.modelSettings,
      ...(agent.outputSchema && { outputSchema: outputJsonSchema(agent) }),
      ...(agent.guardrails.length > 0 && { guardrails: agent.guardrails.map((guardrail) => this.guardrailSpec(guardrail)) }),
    };
  }

  /** A guardrail as the workflow runs it: a code guardrail with its activity settings, a model one with its agent. */
  private guardrailSpec(named: Guardrail | string): GuardrailSpec {
    const guardrail = this.guardrails.get(nameOf(named))!;
    const spec = {
      name: guardrail.name,
      checks: guardrail.checks,
      ...(guardrail.runInParallel && { parallel: true }),
      ...(guardrail.onTrip && { onTrip: guardrail.onTrip }),
    };
    if (guardrail.agent !== undefined) return { ...spec, agent: nameOf(guardrail.agent) };
    const { timeout, maximumAttempts } = guardrail.activity;
    return { ...spec, timeout, maximumAttempts };
  }

  /**
   * What a registered provider reserves a tool name for (Anthropic's `final_output`: `structured output`), if one does:
   * the provider may offer the model a tool of that name, so nothing else may take it.
   */
  reservedToolPurpose(name: string): string | undefined {
    for (const provider of this.providers.values()) {
      const reserved = provider.reservedToolNames ?? {};
      // Own keys only: a tool named `constructor` or `toString` is reserved by nobody.
      if (Object.hasOwn(reserved, name)) return reserved[name];
    }
    return undefined;
  }

  /** What the provider of a model would refuse in these settings, in words; undefined when nothing (or no provider is registered for it). */
  modelSettingsProblem(model: string, settings: ModelSettings): string | undefined {
    return this.providers.get(parseModelId(model).provider)?.modelSettingsProblem?.(settings);
  }

  /** The agent and every agent it can reach through its handoffs and subagents, by name. */
  reachable(name: string): Record<string, AgentSpec> {
    const specs: Record<string, AgentSpec> = {};
    const visit = (current: string) => {
      if (specs[current]) return;
      const spec = this.spec(current);
      specs[current] = spec;
      for (const next of [...spec.handoffs, ...spec.subagents]) visit(next);
    };
    visit(name);
    return specs;
  }

  /** What a name in a tools list stands for among the MCP servers (`mcp:*`, `mcp:<server>`, `<server>_<tool>`), if it is not a registered tool. */
  mcpReference(name: string): McpReference | undefined {
    return this.tools.has(name) ? undefined : mcpReference(name, Object.keys(this.mcpServers));
  }

  /** Whether a tools list may name this: a registered tool, or a tool or selector of the MCP servers. */
  knowsTool(name: string): boolean {
    return this.tools.has(name) || this.mcpReference(name) !== undefined;
  }

  /**
   * Whether a list of tools that need approval may name this: what a tools list may name (the same check,
   * selectors included), or an agent, whose calls as a subagent can wait for approval too.
   */
  knowsApprovalName(name: string): boolean {
    return this.knowsTool(name) || this.agents.has(name);
  }

  /**
   * The names of a list of tools that need approval that this worker does not know, each with a hint when it
   * differs from a known name only in case (`Write_File (did you mean write_file?)`); empty when all are known.
   */
  unknownApprovalNames(names: string[]): string[] {
    const known = [
      ...this.tools.keys(),
      ...this.agents.keys(),
      ...Object.keys(this.mcpServers).map((server) => `${mcpSelectorPrefix}${server}`),
    ];
    return names.filter((name) => !this.knowsApprovalName(name)).map((name) => `${name}${didYouMean(name, known)}`);
  }

  /**
   * What a policy's checks (core/approval-policy.ts, policyProblems) know of the tools these names stand for: a
   * registered tool's path and argument names, a subagent's `task`; an MCP name is listed only when a run starts.
   */
  policyTools(names: string[]): PolicyToolInfo[] {
    return names.flatMap((name): PolicyToolInfo[] => {
      const tool = this.tools.get(name);
      if (tool) {
        const shape = (tool.input as { shape?: Record<string, unknown> }).shape;
        return [{ name, paths: pathArgumentsOf(tool), ...(shape && typeof shape === 'object' && { args: Object.keys(shape) }) }];
      }
      if (this.agents.has(name)) return [{ name, paths: [], args: ['task'] }];
      return [];
    });
  }

  /** Whether some of these names are MCP references, whose tools a policy's rules may name before they are listed. */
  namesMcpTools(names: string[]): boolean {
    return names.some((name) => this.mcpReference(name) !== undefined);
  }

  private policyToolsOf(agent: Agent): PolicyToolInfo[] {
    return this.policyTools([...agent.tools.map(nameOf), ...agent.subagents.map(nameOf)]);
  }

  private opensToolsLater(agent: Agent): boolean {
    return this.namesMcpTools(agent.tools.map(nameOf));
  }

  /** What the worker has, for an error message about a name it does not know. */
  describeTools(): string {
    const servers = Object.keys(this.mcpServers);
    const mcp = servers.length
      ? `; MCP servers: ${servers.join(', ')} (tools named <server>_<tool>, or mcp:<server>, mcp:*)`
      : '';
    return `registered tools: ${[...this.tools.keys()].join(', ')}${mcp}`;
  }

  /** How a model is offered a tool name: a registered tool, a subagent (`{task}`), or a handoff (`transfer_to_<agent>`). */
  toolDefinition = (name: string): ToolDefinition => {
    const tool = this.tools.get(name);
    if (tool) return { name, description: tool.description, parameters: toolJsonSchema(tool) };
    if (name.startsWith(handoffToolPrefix)) {
      const target = this.agents.get(name.slice(handoffToolPrefix.length));
      if (target) {
        return {
          name,
          description: `Hand the conversation over to the agent "${target.name}": ${target.description}`,
          parameters: { type: 'object', properties: {}, additionalProperties: false },
        };
      }
    }
    const agent = this.agents.get(name);
    if (agent) return { name, description: agent.description, parameters: subagentParameters };
    throw new ConfigurationError(`tool "${name}" is not registered on this worker`);
  };

  /** The zod schema an agent's final answer must match, if it has one. */
  outputSchema(agent: string): z.ZodType | undefined {
    return this.agents.get(agent)?.outputSchema;
  }

  private addTool(tool: Tool): void {
    const known = this.tools.get(tool.name);
    if (known && known !== tool) throw new ConfigurationError(`two different tools are named "${tool.name}"`);
    if (tool.name.startsWith(handoffToolPrefix)) {
      throw new ConfigurationError(`tool "${tool.name}": names starting with ${handoffToolPrefix} are reserved for handoffs`);
    }
    const reserved = this.reservedToolPurpose(tool.name);
    if (reserved !== undefined) throw new ConfigurationError(`tool "${tool.name}": the name is reserved for ${reserved}`);
    // A tool built without defineTool (an object literal) is checked here: an input with no JSON Schema the providers
    // accept would otherwise fail only inside a run's model activity.
    toolJsonSchema(tool);
    this.tools.set(tool.name, tool);
  }

  /** The tools of `offered` that an agent names and nothing else registered: after every agent, so a value wins. */
  private addToolsNamed(offered: Tool[]): void {
    const named = new Set([...this.agents.values()].flatMap((agent) => agent.tools.filter((tool) => typeof tool === 'string')));
    for (const tool of offered) if (named.has(tool.name) && !this.tools.has(tool.name)) this.addTool(tool);
  }

  private addGrader(grader: Grader): void {
    if (!isGrader(grader))
      throw new ConfigurationError(`"${String((grader as { name?: unknown })?.name)}" is not a grader made by defineGrader`);
    const known = this.graders.get(grader.name);
    if (known && known !== grader) throw new ConfigurationError(`two different graders are named "${grader.name}"`);
    this.graders.set(grader.name, grader);
  }

  private addGuardrail(guardrail: Guardrail): void {
    if (!isGuardrail(guardrail))
      throw new ConfigurationError(
        `"${String((guardrail as { name?: unknown })?.name)}" is not a guardrail made by defineGuardrail`,
      );
    const known = this.guardrails.get(guardrail.name);
    if (known === guardrail) return;
    if (known) throw new ConfigurationError(`two different guardrails are named "${guardrail.name}"`);
    this.guardrails.set(guardrail.name, guardrail);
    if (typeof guardrail.agent === 'object') this.addAgent(guardrail.agent);
  }

  private addAgent(agent: Agent): void {
    if (!isAgent(agent))
      throw new ConfigurationError(`"${String((agent as { name?: unknown })?.name)}" is not an agent made by defineAgent`);
    const known = this.agents.get(agent.name);
    if (known === agent) return;
    if (known) throw new ConfigurationError(`two different agents are named "${agent.name}"`);
    this.agents.set(agent.name, agent);
    for (const tool of agent.tools) if (typeof tool !== 'string') this.addTool(tool);
    for (const other of [...agent.subagents, ...agent.handoffs]) if (typeof other !== 'string') this.addAgent(other);
    for (const guardrail of agent.guardrails) if (typeof guardrail !== 'string') this.addGuardrail(guardrail);
  }

  private check(agent: Agent): void {
    const problem = (text: string) => new ConfigurationError(`agent "${agent.name}": ${text}`);
    if (this.tools.has(agent.name))
      throw problem(`a tool has the same name; as a subagent, the agent is offered as a tool named "${agent.name}"`);
    const reserved = this.reservedToolPurpose(agent.name);
    if (reserved !== undefined)
      throw problem(`the name is reserved for ${reserved}; as a subagent, the agent is offered as a tool named "${agent.name}"`);
    const provider = parseModelId(agent.model).provider;
    if (!this.providers.has(provider)) {
      throw problem(
        `its model ${agent.model} needs the provider "${provider}", which is not registered (known: ${[...this.providers.keys()].join(', ')})`,
      );
    }
    const settingsProblem = this.modelSettingsProblem(agent.model, agent.modelSettings);
    if (settingsProblem) throw problem(settingsProblem);
    for (const tool of agent.tools.map(nameOf)) {
      if (!this.knowsTool(tool)) throw problem(`unknown tool "${tool}" (${this.describeTools()})`);
    }
    const unapprovable = this.unknownApprovalNames(agent.approveTools);
    if (unapprovable.length > 0)
      throw problem(
        `approveTools names unknown tools: ${unapprovable.join(', ')} (${this.describeTools()}; agents: ${this.listedAgentNames().join(', ')})`,
      );
    if (agent.policy) {
      const problems = policyProblems(agent.policy, this.policyToolsOf(agent), this.opensToolsLater(agent));
      if (problems.length > 0) throw problem(`policy: ${problems.join('; ')}`);
    }
    for (const [role, targets] of [
      ['subagent', agent.subagents],
      ['handoff target', agent.handoffs],
    ] as const) {
      for (const target of targets.map(nameOf))
        if (!this.agents.has(target)) throw problem(`${role} "${target}" is not a registered agent`);
    }
    if (agent.handoffs.map(nameOf).includes(agent.name)) throw problem('cannot hand off to itself');
    if (agent.outputSchema) outputJsonSchema(agent);
    for (const named of agent.guardrails.map(nameOf)) {
      const guardrail = this.guardrails.get(named);
      if (!guardrail)
        throw problem(`unknown guardrail "${named}" (registered: ${[...this.guardrails.keys()].join(', ') || 'none'})`);
      if (guardrail.agent !== undefined) this.checkGuardrailAgent(guardrail, nameOf(guardrail.agent));
    }
    for (const target of agent.handoffs.map(nameOf)) {
      if (handoffToolName(target).length > 64)
        throw problem(`the handoff tool name ${handoffToolName(target)} is over 64 characters`);
    }
  }

  /** A model guardrail's agent must be registered and answer `{ tripped: boolean, reason }` as its structured output. */
  private checkGuardrailAgent(guardrail: Guardrail, name: string): void {
    const problem = (text: string) => new ConfigurationError(`guardrail "${guardrail.name}": ${text}`);
    const agent = this.agents.get(name);
    if (!agent) throw problem(`its agent "${name}" is not a registered agent`);
    const schema = agent.outputSchema ? outputJsonSchema(agent) : undefined;
    const properties = schema?.properties as Record<string, { type?: unknown }> | undefined;
    const required = Array.isArray(schema?.required) ? (schema.required as unknown[]) : [];
    if (properties?.tripped?.type !== 'boolean' || !required.includes('tripped'))
      throw problem(`its agent "${name}" needs an outputSchema with a required boolean "tripped" (and a string "reason")`);
    if (agent.guardrails.length > 0) throw problem(`its agent "${name}" has guardrails of its own, which would judge the judge`);
  }
}

export function createAgentRegistry(definitions: Definitions = {}): AgentRegistry {
  return new AgentRegistry(definitions);
}

function outputJsonSchema(agent: Agent): Record<string, unknown> {
  try {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(agent.outputSchema!, { io: 'output' });
    return schema;
  } catch (error) {
    throw new ConfigurationError(`agent "${agent.name}": its outputSchema has no JSON Schema form (${(error as Error).message})`);
  }
}
