import { realpath } from 'node:fs/promises';
import { assertRegistered, assertRunnable, InvalidInputError } from '../client/start-agent';
import type { AgentInput } from '../core/resolve-input';
import { isInside } from '../tools/workspace';
import { defaultWorkspaceRoot } from '../worker/settings';
import { invocationDirectory } from './output';
import { cliRegistry } from './registry';

/**
 * The workspace root of the worker the CLI would run: AGENT_WORKSPACE_ROOT, else the directory the command ran in.
 * The CLI checks every run against it, whoever's worker will run it.
 */
export function cliWorkspaceRoot(): string {
  return defaultWorkspaceRoot(process.env, invocationDirectory());
}

/**
 * Everything that would fail a run in prepareRun, checked before anything starts, by every command that starts runs
 * (run, chat, serve, fork): the input's shape, the workspace (an existing directory inside the workspace root), and
 * the agent, its model's provider and that provider's rules about the settings, the tools and the tools to approve.
 * A mistake is an InvalidInputError: exit 2, nothing started.
 *
 * Against the CLI's own registry and workspace root, those of the worker it would run (the built-in agents, tools
 * and providers, AGENT_DEFINITIONS, AGENT_MCP_CONFIG, AGENT_WORKSPACE_ROOT), also when a standing worker will run
 * the run: a Temporal client cannot ask a worker what it has without starting a workflow, so the CLI is given the
 * same settings as the workers (docs/agents.md). A worker that knows less than the CLI still refuses in prepareRun.
 */
export async function assertStartable(input: AgentInput): Promise<void> {
  await assertRunnable(input);
  try {
    assertRegistered(input, cliRegistry());
  } catch (error) {
    if (!(error instanceof InvalidInputError) || !/^unknown /.test(error.message)) throw error;
    throw new InvalidInputError(
      `${error.message} (the CLI checks runs against its own AGENT_DEFINITIONS and AGENT_MCP_CONFIG: give it those of your workers)`,
    );
  }
  await assertInsideWorkspaceRoot(input.workspace);
}

async function assertInsideWorkspaceRoot(workspace: string): Promise<void> {
  const root = cliWorkspaceRoot();
  const realRoot = await realpath(root).catch(() => {
    throw new InvalidInputError(`the workspace root "${root}" (AGENT_WORKSPACE_ROOT) is not an existing directory`);
  });
  const real = await realpath(workspace).catch(() => {
    throw new InvalidInputError(`workspace "${workspace}" is not an existing directory`);
  });
  if (!isInside(realRoot, real)) {
    throw new InvalidInputError(
      `workspace "${workspace}" is outside the workspace root "${root}" ` +
        '(AGENT_WORKSPACE_ROOT, else the directory the command runs in; symlinks resolved)',
    );
  }
}
