import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { ResolvedAgentInput } from '../core/input';
import { resolveAgentInput, type AgentInput } from '../core/resolve-input';
import type { AgentResult } from '../core/result';
import { agentWorkflowType } from '../workflows/definitions';
import { clip } from '../workflows/summaries';

export type AgentWorkflow = (input: ResolvedAgentInput) => Promise<AgentResult>;
export type AgentHandle = WorkflowHandleWithFirstExecutionRunId<AgentWorkflow>;

export class InvalidInputError extends Error {}

/** Checks a caller's input and fills in every default; the workflow receives only explicit settings. */
export function resolveOrThrow(input: AgentInput): ResolvedAgentInput {
  const check = resolveAgentInput(input);
  if (!check.ok) throw new InvalidInputError(`invalid input: ${check.problems}`);
  return check.input;
}

/** Everything checkable on the client is checked before a server or worker starts. */
export async function assertRunnable(input: AgentInput): Promise<void> {
  resolveOrThrow(input);
  if (!(await stat(input.workspace).catch(() => undefined))?.isDirectory()) {
    throw new InvalidInputError(`workspace "${input.workspace}" is not an existing directory`);
  }
}

export function newWorkflowId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `agent-${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * Resolves the input once, here on the client (defaults filled in, so the run
 * never depends on the defaults of the code that replays it), then starts the
 * run with a static summary (the task) and details (model, tools, workspace) for the Web UI.
 */
export async function startAgent(
  client: Client,
  input: AgentInput,
  options: { taskQueue: string; workflowId?: string },
): Promise<AgentHandle> {
  const resolved = resolveOrThrow(input);
  return client.workflow.start<AgentWorkflow>(agentWorkflowType, {
    taskQueue: options.taskQueue,
    workflowId: options.workflowId ?? newWorkflowId(),
    args: [resolved],
    staticSummary: clip(resolved.prompt ?? (resolved.session ? 'chat session' : 'agent run'), 200),
    staticDetails: [
      `**model** \`${resolved.model}\``,
      `**tools** ${resolved.tools.length ? resolved.tools.map((tool) => `\`${tool}\``).join(', ') : 'none'}`,
      `**workspace** \`${resolved.workspace}\``,
      `**max iterations** ${resolved.maxIterations}`,
    ].join('\n\n'),
  });
}
