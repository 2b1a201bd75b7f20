import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { checkAgentInput, type AgentInput } from '../agent/input';
import type { AgentResult } from '../agent/result';
import { agentWorkflowType } from '../workflows/definitions';
import { clip } from '../workflows/summaries';

export type AgentHandle = WorkflowHandleWithFirstExecutionRunId<(input: AgentInput) => Promise<AgentResult>>;

export class InvalidInputError extends Error {}

/** Everything checkable on the client is checked before a server or worker starts. */
export async function assertRunnable(input: AgentInput): Promise<void> {
  const check = checkAgentInput(input);
  if (!check.ok) throw new InvalidInputError(`invalid input: ${check.problems}`);
  if (!(await stat(input.workspace).catch(() => undefined))?.isDirectory()) {
    throw new InvalidInputError(`workspace "${input.workspace}" is not an existing directory`);
  }
}

export function newWorkflowId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `agent-${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * Validates the input with the same schema the workflow uses, then starts the
 * run with a static summary (the task) and details (model, tools, workspace) for the Web UI.
 */
export async function startAgent(
  client: Client,
  input: AgentInput,
  options: { taskQueue: string; workflowId?: string },
): Promise<AgentHandle> {
  const check = checkAgentInput(input);
  if (!check.ok) throw new InvalidInputError(`invalid input: ${check.problems}`);
  const valid = check.input;
  return client.workflow.start<(input: AgentInput) => Promise<AgentResult>>(agentWorkflowType, {
    taskQueue: options.taskQueue,
    workflowId: options.workflowId ?? newWorkflowId(),
    args: [input],
    staticSummary: clip(valid.prompt ?? (valid.session ? 'chat session' : 'agent run'), 200),
    staticDetails: [
      `**model** \`${valid.model}\``,
      `**tools** ${valid.tools.length ? valid.tools.map((tool) => `\`${tool}\``).join(', ') : 'none'}`,
      `**workspace** \`${valid.workspace}\``,
      `**max iterations** ${valid.maxIterations}`,
    ].join('\n\n'),
  });
}
