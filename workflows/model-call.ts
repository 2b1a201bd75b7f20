import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import { failureTypes } from '../core/errors';
import { modelCallRetryPolicy } from '../core/model-retry-policy';
import type { AgentSpec } from '../core/agent-spec';
import type { ResolvedAgentInput } from '../core/input';
import type { McpListing } from '../mcp/types';
import type { CoreActivities, ModelCallInput, ModelCallResult } from '../activities';
import type { ToolChoice } from '../providers/provider-call';
import { withMcpListing } from './mcp/listing-reference';
import type { AgentState } from './state';
import { approvalToolsOf } from './approval-tools';
import { maxToolCallsPerReply } from './tool-call-cap';
import { runPriority } from './run-priority';
import { batchModelCall, batchSettingsOf } from './batch-model-call';

/**
 * Model calls: retried by Temporal only (the SDKs' retries are off); heartbeats
 * expose a dead worker within 30 s; a cancelled run waits for the call to stop.
 */
const modelActivityOptions = {
  heartbeatTimeout: '30s',
  retry: modelCallRetryPolicy,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
} as const;

export interface ModelCallRequest {
  label: string;
  /** The agent that has the conversation: its model, instructions and settings. */
  agent: AgentSpec;
  /** The tool names offered: the agent's tools, subagents and handoff tools. */
  tools: string[];
  toolChoice: ToolChoice;
  summarizeUpTo?: number;
  /** The run's MCP tools (listMcpTools), when it has some. */
  mcp?: McpListing;
  /** Publish the text to the run's stream as it is written, as this model call (a run started with `stream: true`). */
  streamAs?: string;
  /** Provider to task queue (prepareRun's modelQueues): a provider named here has its model calls on its own queue. */
  modelQueues?: Record<string, string>;
}

/**
 * Calls the model with only the messages added since the transcript the model
 * activity last stored, so each call adds new content to history, not the whole
 * conversation. If the activity's store lacks that transcript, the call is made
 * again with the conversation inline: the store saves bytes, never correctness.
 *
 * Written with `then`, not async/await: each promise a workflow makes costs a
 * stack trace in the SDK's promise hook, on every iteration and at every replay
 * (bench/NOTES.md, "Loop overhead": 16.4 → 10.4 promises per iteration).
 */
export function callModel(input: ResolvedAgentInput, state: AgentState, request: ModelCallRequest): Promise<ModelCallResult> {
  // In batch mode the call is a submission, timers and status checks, and a result read (batch-model-call.ts).
  const batch = batchSettingsOf(input, request.agent);
  const activity = withMcpListing(
    batch
      ? batchModelCall(batch, request.label)
      : proxyActivities<CoreActivities>({
          ...modelActivityOptions,
          startToCloseTimeout: `${input.modelTimeoutSeconds}s`,
          summary: request.label,
          ...modelQueueOf(request),
          ...runPriority(),
        }).callModel,
    request.mcp,
    () => state.modelCallsThisRun++,
  );
  const { agent } = request;
  const base: ModelCallInput = {
    model: agent.model,
    agent: agent.name,
    instructions: agent.instructions,
    tools: request.tools,
    toolChoice: request.toolChoice,
    modelSettings: agent.modelSettings,
    ...(agent.outputSchema && request.summarizeUpTo === undefined && { expectsOutput: true }),
    view: { compactAfterTurns: input.context.compactAfterTurns, summary: state.summary },
    summarizeUpTo: request.summarizeUpTo,
    ...(request.streamAs !== undefined && { streamAs: request.streamAs }),
    approval: { tools: approvalToolsOf(agent, input), skip: input.approval?.skip ?? false },
    maxToolCalls: maxToolCallsPerReply(input),
    workspace: input.workspace,
    transcript: { baseLength: 0, messages: state.messages },
  };
  const { id, length } = state.transcript;
  state.modelCallsThisRun++;
  const failed = (error: unknown): never => {
    throw runFailure(error);
  };
  if (!id || length > state.messages.length) return activity(base).then(undefined, failed);
  return activity({ ...base, transcript: { base: id, baseLength: length, messages: state.messages.slice(length) } }).then(
    undefined,
    (error: unknown) => {
      if (!isTranscriptUnavailable(error)) failed(error);
      state.modelCallsThisRun++;
      return activity(base).then(undefined, failed);
    },
  );
}

/**
 * The task queue of the agent's provider, when the worker gave it one (worker/provider-queues.ts: a rate limit the
 * server enforces across workers); none, and the call stays on the run's queue, otherwise.
 */
function modelQueueOf(request: ModelCallRequest): { taskQueue?: string } {
  const separator = request.agent.model.indexOf(':');
  const taskQueue = request.modelQueues?.[request.agent.model.slice(0, Math.max(separator, 0))];
  return taskQueue ? { taskQueue } : {};
}

function isTranscriptUnavailable(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === failureTypes.transcriptUnavailable
  );
}

/**
 * A setup check or model call that failed for good ends the run. The workflow's
 * own failure repeats the worker's or the provider's message, so the CLI and
 * the Web UI show it first-hand; the activity failure stays as its cause.
 */
export function runFailure(error: unknown): unknown {
  if (isCancellation(error) || !(error instanceof ActivityFailure)) return error;
  const cause = error.cause;
  return ApplicationFailure.create({
    type: cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined,
    message: cause?.message ?? error.message,
    nonRetryable: true,
    cause: error,
  });
}
