import { z } from 'zod';
import { ConfigurationError } from '../core/errors';
import { approvalPolicySchema, modelSettingsSchema, type ApprovalPolicy } from '../core/agent-spec';
import { handoffToolName } from '../core/tool-names';
import { parseModelId } from '../core/model-id';
import type { ModelSettings } from '../core/agent-spec';
import type { Tool } from '../tools';
import { agentTimeBoundsProblem, type AgentTimeBounds } from '../core/timed-wait';
import { builtInProviders } from '../providers';
import type { Guardrail } from './define-guardrail';

/**
 * An agent: a value a worker registers, like a tool or a provider. Tools,
 * subagents and handoffs may be given as values or by name; names are looked up
 * when the agents are registered (createAgentRegistry), which is also where a
 * missing target is refused. Handoffs may form cycles (name one side).
 */
export interface Agent {
  readonly kind: 'agent';
  name: string;
  /** What a caller sees when this agent is offered as a subagent or a handoff. */
  description: string;
  /** The system prompt while this agent has the conversation. */
  instructions: string;
  /** `provider:model` */
  model: string;
  tools: Array<Tool | string>;
  /**
   * Tools whose calls by this agent wait for a person's approval: names as in `tools` (`write_file`,
   * `github_create_issue`, `mcp:github`, `mcp:*`), or a subagent's name. Matched exactly, case included.
   */
  approveTools: string[];
  /**
   * Which calls run, wait for a person, or never run (docs/policy.md): ordered rules over the tool, its arguments,
   * the principal and the tenant, decided before `approveTools` and the tools' own `needsApproval`.
   */
  policy?: ApprovalPolicy;
  subagents: Array<Agent | string>;
  handoffs: Array<Agent | string>;
  maxIterations: number;
  /** A cost budget in US dollars for runs this agent starts (a run's own --max-cost-usd wins). */
  maxCostUsd?: number;
  /** Runs this agent starts send every model call through the provider's batch API (half price, within a day); sessions never do. */
  batch?: boolean;
  /**
   * Its own time bounds, each tightening the worker's (docs/time.md, "Bounds"): the longest sleep and wait for an
   * event, and the most live schedules of this agent.
   */
  time?: AgentTimeBounds;
  /** When set, the final answer must be JSON matching it; the result carries it parsed as `output`. */
  outputSchema?: z.ZodType;
  modelSettings: ModelSettings;
  /**
   * Guardrails (defineGuardrail), by value or by name: input guardrails check each person's message before the model
   * sees it, output guardrails the final answer before anyone does. A tripped one ends the turn `guardrail_tripped`.
   */
  guardrails: Array<Guardrail | string>;
  /**
   * Callers may send it images and files with the task (docs/attachments.md): `agent mcp` gives its tool an optional
   * `files` argument, checked and stored like any attachment before the run starts. Off unless set: a tool's input
   * says nothing of files its agent was not made to read.
   */
  acceptsAttachments?: boolean;
}

export interface AgentDefinition {
  name: string;
  description: string;
  instructions?: string;
  model: string;
  tools?: Array<Tool | string>;
  approveTools?: string[];
  policy?: ApprovalPolicy;
  subagents?: Array<Agent | string>;
  handoffs?: Array<Agent | string>;
  maxIterations?: number;
  maxCostUsd?: number;
  batch?: boolean;
  time?: AgentTimeBounds;
  outputSchema?: z.ZodType;
  modelSettings?: ModelSettings;
  guardrails?: Array<Guardrail | string>;
  acceptsAttachments?: boolean;
}

// An agent's name is also a tool name (as a subagent) and part of one (transfer_to_<name>), within the 64 characters both APIs allow.
const agentNamePattern = /^[a-zA-Z0-9_-]{1,52}$/;

export const defaultAgentMaxIterations = 20;

/** Defines an agent, checking at once everything that does not need the other definitions. */
export function defineAgent(definition: AgentDefinition): Agent {
  const { name } = definition;
  const problem = (text: string) => new ConfigurationError(`agent "${name}": ${text}`);
  if (!agentNamePattern.test(name)) throw problem(`the name must match ${agentNamePattern} (it becomes a tool name)`);
  if (!definition.description?.trim()) throw problem('needs a description: a model chooses subagents and handoffs by it');
  try {
    parseModelId(definition.model);
  } catch (error) {
    throw problem((error as Error).message);
  }
  const maxIterations = definition.maxIterations ?? defaultAgentMaxIterations;
  if (!Number.isInteger(maxIterations) || maxIterations < 1) throw problem('maxIterations must be a positive whole number');
  if (definition.maxCostUsd !== undefined && !(definition.maxCostUsd > 0)) throw problem('maxCostUsd must be more than 0');
  const temperature = definition.modelSettings?.temperature;
  if (temperature !== undefined && !(temperature >= 0 && temperature <= 2))
    throw problem('modelSettings.temperature must be between 0 and 2');
  const maxOutputTokens = definition.modelSettings?.maxOutputTokens;
  if (maxOutputTokens !== undefined && (!Number.isInteger(maxOutputTokens) || maxOutputTokens < 1)) {
    throw problem('modelSettings.maxOutputTokens must be a positive whole number');
  }
  const settings = modelSettingsSchema.safeParse(definition.modelSettings ?? {});
  if (!settings.success) {
    throw problem(settings.error.issues.map((issue) => `modelSettings.${issue.path.join('.')}: ${issue.message}`).join('; '));
  }
  // A built-in provider's own rules are known now; a provider of your own is asked when the agents are registered.
  const provider = builtInProviders.find((candidate) => candidate.name === parseModelId(definition.model).provider);
  const settingsProblem = provider?.modelSettingsProblem?.(settings.data);
  if (settingsProblem) throw problem(settingsProblem);
  const tools = definition.tools ?? [];
  const subagents = definition.subagents ?? [];
  const handoffs = definition.handoffs ?? [];
  const duplicate = (names: string[]) => names.find((candidate, index) => names.indexOf(candidate) !== index);
  const toolNames = [
    ...tools.map(nameOf),
    ...subagents.map(nameOf),
    ...handoffs.map((target) => handoffToolName(nameOf(target))),
  ];
  const twice = duplicate(toolNames);
  if (twice)
    throw problem(`offers the model two tools named "${twice}" (tools, subagents and transfer_to_<handoff> share one namespace)`);
  const approveTools = definition.approveTools ?? [];
  if (!Array.isArray(approveTools) || approveTools.some((tool) => typeof tool !== 'string' || !tool.trim())) {
    throw problem('approveTools must be a list of tool names');
  }
  const policy = definition.policy === undefined ? undefined : approvalPolicySchema.safeParse(definition.policy);
  if (policy && !policy.success) {
    throw problem(policy.error.issues.map((issue) => `policy.${issue.path.join('.')}: ${issue.message}`).join('; '));
  }
  if (definition.batch !== undefined && typeof definition.batch !== 'boolean') throw problem('batch must be true or false');
  const timeProblem = definition.time === undefined ? undefined : agentTimeBoundsProblem(definition.time);
  if (timeProblem) throw problem(timeProblem);
  const guardrails = definition.guardrails ?? [];
  if (!Array.isArray(guardrails)) throw problem('guardrails must be a list of guardrails (defineGuardrail) or their names');
  const twiceGuarded = duplicate(guardrails.map(nameOf));
  if (twiceGuarded) throw problem(`names the guardrail "${twiceGuarded}" twice`);
  if (definition.acceptsAttachments !== undefined && typeof definition.acceptsAttachments !== 'boolean') {
    throw problem('acceptsAttachments must be true or false');
  }
  if (definition.outputSchema !== undefined && !(definition.outputSchema instanceof z.ZodType)) {
    throw problem('outputSchema must be a zod schema');
  }
  return {
    kind: 'agent',
    name,
    description: definition.description,
    instructions: definition.instructions ?? '',
    model: definition.model,
    tools,
    approveTools,
    ...(policy && { policy: policy.data }),
    subagents,
    handoffs,
    maxIterations,
    ...(definition.maxCostUsd !== undefined && { maxCostUsd: definition.maxCostUsd }),
    ...(definition.batch && { batch: true }),
    ...(definition.time && Object.keys(definition.time).length > 0 && { time: { ...definition.time } }),
    ...(definition.outputSchema && { outputSchema: definition.outputSchema }),
    modelSettings: definition.modelSettings ?? {},
    guardrails,
    ...(definition.acceptsAttachments && { acceptsAttachments: true }),
  };
}

export function nameOf(item: { name: string } | string): string {
  return typeof item === 'string' ? item : item.name;
}

export function isAgent(value: unknown): value is Agent {
  return typeof value === 'object' && value !== null && (value as Agent).kind === 'agent';
}
