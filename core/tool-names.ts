import type { AgentSpec } from './agent-spec';

// The names an agent's model calls tools by: its tools, its subagents, and `transfer_to_<agent>` for its handoffs.

export const handoffToolPrefix = 'transfer_to_';

export function handoffToolName(agent: string): string {
  return `${handoffToolPrefix}${agent}`;
}

/** What a tool name a model called stands for in a given agent: a tool, a subagent, or a handoff. */
export type ToolKind = { kind: 'tool' } | { kind: 'subagent'; agent: string } | { kind: 'handoff'; agent: string };

export function toolKind(agent: AgentSpec, name: string): ToolKind | undefined {
  if (agent.subagents.includes(name)) return { kind: 'subagent', agent: name };
  if (name.startsWith(handoffToolPrefix) && agent.handoffs.includes(name.slice(handoffToolPrefix.length))) {
    return { kind: 'handoff', agent: name.slice(handoffToolPrefix.length) };
  }
  return agent.tools.includes(name) ? { kind: 'tool' } : undefined;
}

/** Every tool name the model of this agent is offered. */
export function offeredToolNames(agent: AgentSpec, options: { subagents: boolean }): string[] {
  return [...agent.tools, ...(options.subagents ? agent.subagents : []), ...agent.handoffs.map(handoffToolName)];
}
