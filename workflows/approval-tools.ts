import type { AgentSpec } from '../core/agent-spec';
import type { ResolvedAgentInput } from '../core/input';

/**
 * The tools whose every call a person approves in this run: the agent's
 * `approveTools`, which prepareRun and listMcpTools fill with the agent's own
 * names and the run's (selectors such as `mcp:*` expanded). Runs set up before
 * agents carried them have the run's names only.
 */
export function approvalToolsOf(agent: AgentSpec, input: ResolvedAgentInput): string[] {
  return agent.approveTools ?? input.approval?.tools ?? [];
}
