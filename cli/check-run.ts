import { realpath } from 'node:fs/promises';
import { assertRegistered, assertRunnable, InvalidInputError, resolveOrThrow } from '../client/start-agent';
import { parseModelId } from '../core/model-id';
import type { AttachmentPart } from '../core/attachments';
import { AttachmentNotAcceptedError } from '../core/errors';
import { attachmentRefusal } from '../providers/attachment-capability';
import type { AgentInput } from '../core/resolve-input';
import { isInside } from '../tools/workspace';
import { defaultWorkspaceRoot } from '../worker/settings';
import { programName } from './help';
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

/**
 * The provider credentials the run's agents need (OPENAI_API_KEY, ANTHROPIC_API_KEY...), checked when the worker
 * will be this command's own, so it reads them from this shell: a key that is missing is named here, exit 2, and no
 * run starts (it used to start, and fail in its first model call). A standing worker checks its own environment.
 * Every agent the run can reach (its subagents and handoffs) is checked, each with its own model.
 */
export function assertProviderCredentials(input: AgentInput, env: NodeJS.ProcessEnv = process.env): void {
  const registry = cliRegistry();
  const resolved = resolveOrThrow(input);
  for (const [name, spec] of Object.entries(registry.reachable(resolved.agent))) {
    const model = name === resolved.agent ? (resolved.model ?? spec.model) : spec.model;
    try {
      registry.providers.get(parseModelId(model).provider)?.checkEnvironment?.(env);
    } catch (error) {
      throw new InvalidInputError(
        `agent "${name}" uses ${model}, and ${(error as Error).message}: this command runs the worker itself, ` +
          `so set it in this shell (or start a worker that has it: ${programName} worker)`,
      );
    }
  }
}

/**
 * Attachments a session's message will carry, against the model the CLI's registry gives the session's agent: one the
 * model cannot take is refused before the session starts (AttachmentNotAcceptedError, exit 2), not at its first call.
 */
export function assertAttachmentsAccepted(input: AgentInput, attachments: readonly AttachmentPart[]): void {
  if (attachments.length === 0) return;
  const resolved = resolveOrThrow(input);
  const registry = cliRegistry();
  const model = resolved.model ?? registry.agents.get(resolved.agent)?.model;
  if (!model) return;
  const id = parseModelId(model);
  const provider = registry.providers.get(id.provider);
  const refusal = provider && attachmentRefusal(provider, id.model, attachments);
  if (refusal) throw new AttachmentNotAcceptedError(refusal);
}
