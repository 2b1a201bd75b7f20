import { parseArgs } from 'node:util';
import { nameOf } from '../../agents/define-agent';
import { cliRegistry } from '../registry';
import { UsageError } from '../help';
import type { Output } from '../output';

/** `agent agents`: the registered agents (built-in and AGENT_DEFINITIONS), with their model, tools, subagents and handoffs. */
export async function agentsCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  if (positionals.length > 0) throw new UsageError('agents takes no arguments');
  const registry = cliRegistry();
  const agents = registry
    .listedAgentNames()
    .map((name) => registry.agents.get(name)!)
    .map((agent) => ({
      name: agent.name,
      description: agent.description,
      model: agent.model,
      tools: agent.tools.map(nameOf),
      subagents: agent.subagents.map(nameOf),
      handoffs: agent.handoffs.map(nameOf),
      maxIterations: agent.maxIterations,
      structuredOutput: agent.outputSchema !== undefined,
      modelSettings: agent.modelSettings,
    }));
  if (values.json) {
    output.result(JSON.stringify({ agents }));
    return 0;
  }
  const list = (items: string[]) => (items.length ? items.join(', ') : 'none');
  for (const agent of agents) {
    output.result(
      [
        `${agent.name} (${agent.model})`,
        `  ${agent.description}`,
        `  tools: ${list(agent.tools)}`,
        `  subagents: ${list(agent.subagents)}`,
        `  handoffs: ${list(agent.handoffs)}`,
        ...(agent.structuredOutput ? ['  answers in a structured output'] : []),
        ...(agent.modelSettings.thinkingBudget !== undefined
          ? [`  thinks with up to ${agent.modelSettings.thinkingBudget} tokens`]
          : []),
        ...(agent.modelSettings.reasoningEffort !== undefined
          ? [`  reasoning effort: ${agent.modelSettings.reasoningEffort}`]
          : []),
      ].join('\n'),
    );
  }
  return 0;
}
