import type { Agent } from '../agents/define-agent';
import { scriptedModelId } from './scripted-model';

/**
 * Copies of your agents (and of every subagent and handoff they hold as values) whose model calls go to the scripted
 * provider: the model becomes `<provider>:<agent>@<its own model>`. The definitions are otherwise yours, unchanged:
 * instructions, tools, approvals and limits are what the test exercises.
 */
export function answeredBy(provider: string, agents: Agent[]): Agent[] {
  const copies = new Map<Agent, Agent>();
  const copy = (agent: Agent): Agent => {
    const known = copies.get(agent);
    if (known) return known;
    const clone: Agent = { ...agent, model: scriptedModelId(provider, agent.name, agent.model) };
    copies.set(agent, clone);
    clone.subagents = agent.subagents.map((target) => (typeof target === 'string' ? target : copy(target)));
    clone.handoffs = agent.handoffs.map((target) => (typeof target === 'string' ? target : copy(target)));
    return clone;
  };
  return agents.map(copy);
}
