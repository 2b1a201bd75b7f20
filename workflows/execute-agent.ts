import { executeChild, type ChildWorkflowOptions } from '@temporalio/workflow';
import type { AgentInput } from '../core/resolve-input';
import { resolveAgentInputWithoutZod } from '../core/resolve-input-without-zod';
import type { ResolvedAgentInput } from '../core/input';
import type { AgentResult } from '../core/result';
import { agentWorkflowType } from './definitions';

/**
 * Runs an agent as a child workflow of your own workflow and returns its
 * result. The input is resolved here, once (defaults filled in, recorded in the
 * child's input), as startAgent does on a client, but without zod: it would
 * otherwise be evaluated again for every workflow your worker starts
 * (bench/NOTES.md). The worker that runs the child needs the AgentPlugin and the
 * agent's definition.
 *
 *   const result = await executeAgent({ agent: 'researcher', prompt, workspace: '/data' });
 */
export async function executeAgent(input: AgentInput, options: Omit<ChildWorkflowOptions, 'args'> = {}): Promise<AgentResult> {
  const check = resolveAgentInputWithoutZod(input);
  if (!check.ok) throw new TypeError(`invalid agent input: ${check.problems}`);
  return executeChild<(input: ResolvedAgentInput) => Promise<AgentResult>>(agentWorkflowType, {
    ...options,
    args: [check.input],
  });
}
