import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { Priority, SearchAttributePair, WorkflowIdReusePolicy } from '@temporalio/common';
import type { AgentRegistry } from '../agents/registry';
import type { ResolvedAgentInput } from '../core/input';
import { parseModelId } from '../core/model-id';
import { mergeModelSettings } from '../core/model-settings';
import { AgentError, AttachmentNotAcceptedError } from '../core/errors';
import { attachmentRefusal } from '../providers/attachment-capability';
import { defaultAgentName } from '../core/limits';
import { resolveAgentInput, type AgentInput } from '../core/resolve-input';
import type { AgentResult } from '../core/result';
import { agentWorkflowType } from '../workflows/definitions';
import { clip } from '../workflows/summaries';
import { runKindMemoField, runKinds } from '../workflows/versioning';
import { priorityOf, type RunTenancy } from './run-tenancy';
import type { AttachmentPart } from '../core/attachments';
import type { AttachmentStore } from '../storage/attachment-store';
import { AttachmentRefusedError, storeAttachments, type AttachmentInput } from './attachment-input';

export type AgentWorkflow = (input: ResolvedAgentInput) => Promise<AgentResult>;
export type AgentHandle = WorkflowHandleWithFirstExecutionRunId<AgentWorkflow>;

/** The caller's input is wrong (its shape, the workspace, an unknown agent, tool or provider): nothing was started. */
export class InvalidInputError extends AgentError {}

/** Checks a caller's input and fills in every default; the workflow receives only explicit settings. */
export function resolveOrThrow(input: AgentInput): ResolvedAgentInput {
  const check = resolveAgentInput(input);
  if (!check.ok) throw new InvalidInputError(`invalid input: ${check.problems}`);
  return check.input;
}

/** Everything checkable on the client is checked before a server or worker starts: the input's shape and the workspace. */
export async function assertRunnable(input: AgentInput): Promise<void> {
  resolveOrThrow(input);
  if (!(await stat(input.workspace).catch(() => undefined))?.isDirectory()) {
    throw new InvalidInputError(`workspace "${input.workspace}" is not an existing directory`);
  }
}

/**
 * Checks the agent, its tools and its model's provider against a registry:
 * the CLI's own, when the worker will be the CLI's own. (A remote worker may
 * know agents the CLI does not; its prepareRun checks them.)
 */
export function assertRegistered(input: AgentInput, registry: AgentRegistry): void {
  const resolved = resolveOrThrow(input);
  if (!registry.agents.has(resolved.agent)) {
    throw new InvalidInputError(
      `unknown agent "${resolved.agent}"; registered agents: ${registry.listedAgentNames().join(', ')}`,
    );
  }
  const model = resolved.model ?? registry.agents.get(resolved.agent)!.model;
  const provider = parseModelId(model).provider;
  if (!registry.providers.has(provider)) {
    throw new InvalidInputError(
      `unknown provider "${provider}" in model "${model}"; known providers: ${[...registry.providers.keys()].join(', ')}`,
    );
  }
  // The run's settings over the agent's, as prepareRun will merge them: a rule of the provider they break fails now.
  const settings = mergeModelSettings(registry.agents.get(resolved.agent)!.modelSettings, resolved.modelSettings);
  const settingsProblem = registry.modelSettingsProblem(model, settings);
  if (settingsProblem) throw new InvalidInputError(`agent "${resolved.agent}": ${settingsProblem}`);
  // A prompt's attachments the model cannot take: refused now, not at its first call.
  const attachmentProblem = attachmentRefusal(
    registry.providers.get(provider)!,
    parseModelId(model).model,
    resolved.attachments ?? [],
  );
  if (attachmentProblem) throw new AttachmentNotAcceptedError(attachmentProblem);
  const unknownTools = (resolved.tools ?? []).filter((tool) => !registry.knowsTool(tool));
  if (unknownTools.length > 0)
    throw new InvalidInputError(`unknown tools: ${unknownTools.join(', ')}; ${registry.describeTools()}`);
  // A name that matches no tool would approve nothing, silently: refused like an unknown tool.
  const unapprovable = registry.unknownApprovalNames(resolved.approval?.tools ?? []);
  if (unapprovable.length > 0)
    throw new InvalidInputError(`unknown tools to approve: ${unapprovable.join(', ')}; ${registry.describeTools()}`);
}

/**
 * A run's input as the library takes it: its prompt's `attachments` may be files or bytes (AttachmentInput), which
 * startAgent checks and stores before the run starts (a refused file starts nothing), or references already stored.
 */
export type StartAgentInput = Omit<AgentInput, 'attachments'> & { attachments?: Array<AttachmentInput | AttachmentPart> };

/** The input with every attachment stored and replaced by its reference; an AttachmentRefusedError if one is refused. */
export async function withStoredAttachments(input: StartAgentInput, store?: AttachmentStore): Promise<AgentInput> {
  const { attachments, ...rest } = input;
  if (!attachments?.length) return rest as AgentInput;
  if (rest.prompt === undefined) throw new AttachmentRefusedError('attachments go with a prompt: give one');
  return { ...rest, attachments: await storeAttachments(attachments, store) } as AgentInput;
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
  input: StartAgentInput,
  options: {
    taskQueue: string;
    workflowId?: string;
    staticSummary?: string;
    searchAttributes?: SearchAttributePair[];
    /** More memo fields for the run (durable-agent/web stores a session's owner here). */
    memo?: Record<string, unknown>;
    /** Whether the id may start again once its run has closed (Temporal's default: yes). The web's chats never do. */
    workflowIdReusePolicy?: WorkflowIdReusePolicy;
    /** Where the prompt's attachments are stored (the stores of this process's environment unless given). */
    attachmentStore?: AttachmentStore;
  } & RunTenancy,
): Promise<AgentHandle> {
  const { resolved, start } = agentStartOptions(await withStoredAttachments(input, options.attachmentStore), options);
  return client.workflow.start<AgentWorkflow>(agentWorkflowType, {
    taskQueue: options.taskQueue,
    workflowId: options.workflowId ?? newWorkflowId(),
    args: [resolved],
    ...start,
    ...(options.searchAttributes && { typedSearchAttributes: options.searchAttributes }),
    ...(options.workflowIdReusePolicy && { workflowIdReusePolicy: options.workflowIdReusePolicy }),
  });
}

/**
 * What starting a run of `input` sets beside its id and queue: the resolved input, its static summary and details,
 * memo and task priority. One function for every way a run starts, `startAgent` and a schedule's action
 * (schedules/), so that a scheduled run is an ordinary run.
 */
export function agentStartOptions(
  input: AgentInput,
  options: { staticSummary?: string; memo?: Record<string, unknown> } & RunTenancy,
): {
  resolved: ResolvedAgentInput;
  start: { staticSummary: string; staticDetails: string; memo?: Record<string, unknown>; priority?: Priority };
} {
  const resolved = resolveOrThrow(input);
  const tenancy = priorityOf(options);
  if ('problem' in tenancy) throw new InvalidInputError(`invalid input: ${tenancy.problem}`);
  const memo = memoOf(Boolean(resolved.session), options.memo);
  return {
    resolved,
    start: {
      staticSummary: clip(options.staticSummary ?? resolved.prompt ?? (resolved.session ? 'chat session' : 'agent run'), 200),
      // Under Worker Versioning a session auto-upgrades and a one-shot run stays pinned (workflows/versioning.ts), as a
      // run without the field is. Only sessions carry it: a memo is sealed by the codec like every payload, and the SDK
      // client's describe() decodes memos, so a one-shot run stays describable by a client without the keys.
      ...(memo && { memo }),
      staticDetails: staticDetails(resolved, options),
      ...tenancy,
    },
  };
}

/** The run's static details in the Web UI: the agent and what the run sets for it. */
function staticDetails(input: ResolvedAgentInput, tenancy: RunTenancy): string {
  return [
    tenancy.tenant !== undefined &&
      `**tenant** \`${tenancy.tenant}\`${tenancy.tenantWeight !== undefined ? ` (weight ${tenancy.tenantWeight})` : ''}`,
    tenancy.priority !== undefined && `**priority** ${tenancy.priority}`,
    input.agent !== defaultAgentName && `**agent** \`${input.agent}\``,
    input.model && `**model** \`${input.model}\``,
    input.tools && `**tools** ${input.tools.length ? input.tools.map((tool) => `\`${tool}\``).join(', ') : 'none'}`,
    `**workspace** \`${input.workspace}\``,
    input.maxIterations !== undefined && `**max iterations** ${input.maxIterations}`,
    input.forkedFrom &&
      `**forked from** \`${input.forkedFrom.workflowId}\` (run \`${input.forkedFrom.runId}\`) at message ${input.forkedFrom.messageIndex}`,
    // Every setting the run gives, by its own name: a new setting shows without a change here.
    input.modelSettings &&
      `**model settings** ${Object.entries(input.modelSettings)
        .map(([name, value]) => `\`${name}\` ${value}`)
        .join(', ')}`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

function memoOf(session: boolean, extra: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const memo = { ...extra, ...(session && { [runKindMemoField]: runKinds.session }) };
  return Object.keys(memo).length > 0 ? memo : undefined;
}
