import type { Agent } from '../agents/define-agent';
import type { Guardrail } from '../agents/define-guardrail';
import { scriptedModelId } from './scripted-model';

/**
 * Copies of your agents (and of every subagent, handoff and model guardrail's agent they hold as values) whose model calls go to the scripted
 * provider: the model becomes `<provider>:<agent>@<its own model>`. The definitions are otherwise yours, unchanged:
 * instructions, tools, approvals and limits are what the test exercises.
 */
export function answeredBy(provider: string, agents: Agent[]): Agent[] {
  const copies = new Map<Agent, Agent>();
  const guardrailCopies = new Map<Guardrail, Guardrail>();
  // One copy per guardrail, as per agent: two agents that share a guardrail share its copy.
  const copyGuardrail = (guardrail: Guardrail): Guardrail => {
    if (typeof guardrail.agent !== 'object') return guardrail;
    const known = guardrailCopies.get(guardrail);
    if (known) return known;
    const clone: Guardrail = { ...guardrail, agent: copy(guardrail.agent) };
    guardrailCopies.set(guardrail, clone);
    return clone;
  };
  const copy = (agent: Agent): Agent => {
    const known = copies.get(agent);
    if (known) return known;
    const clone: Agent = { ...agent, model: scriptedModelId(provider, agent.name, agent.model) };
    copies.set(agent, clone);
    clone.subagents = agent.subagents.map((target) => (typeof target === 'string' ? target : copy(target)));
    clone.handoffs = agent.handoffs.map((target) => (typeof target === 'string' ? target : copy(target)));
    clone.guardrails = agent.guardrails.map((guardrail) =>
      typeof guardrail === 'string' ? guardrail : copyGuardrail(guardrail),
    );
    return clone;
  };
  return agents.map(copy);
}
