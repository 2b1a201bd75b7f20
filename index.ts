/**
 * durable-agent: durable AI agents on Temporal.
 *
 * Define agents, tools and providers as values; put them on a worker with the
 * AgentPlugin (or createAgentWorker); start runs with startAgent and talk to
 * sessions with sendMessage. Workflow code of your own imports from
 * `durable-agent/workflow` (the agent workflow, and executeAgent to run an
 * agent as a child of your workflow). Every export is listed, one line each,
 * in docs/agents.md's reference (test/unit/exports-documented.test.ts).
 */
// First: an app with two copies of a Temporal package fails here with the fix, not in protobufjs (install/).
import './install/check-one-temporal-copy';
export { defineAgent, type Agent, type AgentDefinition } from './agents/define-agent';
export { createAgentRegistry, AgentRegistry, type Definitions } from './agents/registry';
export { loadDefinitions } from './agents/load-definitions';
export { defaultAgent } from './agents/default-agent';
export { defineTool, builtInTools, type Tool, type ToolContext } from './tools';
// Graders of your own for evals, registered like tools (a definitions module's `graders`).
export { defineGrader, type Grader, type GraderDefinition, type GraderInput, type GraderVerdict } from './agents/define-grader';
// Guardrails, registered like tools and attached to agents (defineAgent's `guardrails`; docs/guardrails.md).
export {
  defineGuardrail,
  type Guardrail,
  type GuardrailDefinition,
  type GuardrailInput,
  type GuardrailActivitySettings,
} from './agents/define-guardrail';
export type { GuardrailVerdict, GuardrailStage, GuardedToolCall, ToolCallTrip, TrippedGuardrail } from './core/guardrails';
export { loadMcpConfig, parseMcpServers, type McpServers, type McpServerConfig, type McpServerEntry } from './mcp/config';
export { everyMcpTool } from './mcp/types';
export { remoteA2AAgent, type RemoteA2AAgentOptions } from './a2a/remote-agent';
export { resolveInWorkspace } from './tools/workspace';
// For tools of your own: open a path the model gave, confined to the workspace without races (resolveInWorkspace only checks a path).
export { openInWorkspace, WorkspaceRefusal, type OpenedInWorkspace, type OpenPurpose } from './tools/open-in-workspace';
export { workspacePath } from './tools/path-argument';
export {
  defineProvider,
  aiSdkProvider,
  builtInProviders,
  type AiSdkModelSource,
  type ModelProvider,
  type ProviderCall,
  type ProviderRequest,
  type ToolChoice,
  type ToolDefinition,
} from './providers';
export { AgentPlugin, type AgentPluginOptions } from './worker/agent-plugin';
export { createAgentWorker, type AgentWorkerOptions } from './worker/create-worker';
export { startAgent, resolveOrThrow, InvalidInputError, type AgentHandle, type AgentWorkflow } from './client/start-agent';
export { sendMessage, MessageNotAnsweredError, type SendMessageOptions } from './client/send-message';
export { storeAttachments, AttachmentRefusedError, type AttachmentInput } from './client/attachment-input';
export type { AttachmentPart, AttachmentMediaType } from './core/attachments';
export type { StartAgentInput } from './client/start-agent';
// Schedules (docs/schedules.md): runs started later by a Temporal Schedule, by a person or by the model (schedule_run).
export {
  createAgentSchedule,
  listAgentSchedules,
  describeAgentSchedule,
  ScheduleBoundError,
  type AgentScheduleOptions,
  type AgentScheduleView,
} from './schedules/agent-schedules';
export { scheduleRunTool } from './schedules/schedule-run-tool';
export type { ScheduleWhen } from './schedules/when';
export type { ScheduleBounds } from './schedules/bounds';
export { agentDataConverter } from './storage/data-converter';
export { resolveAgentInput, type AgentInput } from './core/resolve-input';
export type { ResolvedAgentInput } from './core/input';
export type { AgentResult, AgentStatus, TurnReply, TurnStatus, AgentStatusSnapshot, PendingApproval } from './core/result';
export type { ApprovalText } from './core/approval-description';
export type { ApprovalPolicy, PolicyRule } from './core/agent-spec';
export type { AgentEvent, EvalEvent, StreamEvent } from './core/stream-events';
// Reads a run's conversation without making its worker store a large query answer (agent show uses it).
export { readConversation } from './client/read-conversation';
export { timeTools, createTimeTools, type TimeToolOptions } from './time/time-tools';
export { sendEvent, EventRefusedError, type SendEventOptions } from './time/send-event';
export { createEventHandler, eventWebhookToken, type EventHandlerOptions } from './time/event-handler';
export type { EventDelivered } from './time/event-update';
export type { TimedWait } from './core/timed-wait';
// The gate before a deploy (agent replay): replays runs or history files against this code, with the worker's bundle, plugins and data converter.
export {
  replayRecentRuns,
  replayHistories,
  readHistoryFile,
  readHistoryFileRuns,
  type ReplayedRun,
  type Divergence,
  type ReplayOptions,
  type ReplayRecentRunsOptions,
  type HistoryToReplay,
} from './client/replay-runs';
export type {
  Message,
  ModelResponse,
  Usage,
  FinishReason,
  ReasoningPart,
  ThinkingPart,
  RedactedThinkingPart,
} from './core/messages';
// For providers of your own: a reply's parts in the provider's order, and which thinking a provider may be sent back.
export { assistantMessageFromParts, replyParts, producedBy, type ReplyPart } from './core/reply-parts';
export type { AgentSpec, ModelSettings, ReasoningEffort } from './core/agent-spec';
export { AgentError, AttachmentNotAcceptedError, ConfigurationError, ToolInputError } from './core/errors';
export {
  agentWorkflowType,
  awaitReplyUpdate,
  endSessionSignal,
  conversationQuery,
  type ConversationSnapshot,
  messagesQuery,
  sendMessageUpdate,
  statusQuery,
  steerUpdate,
} from './workflows/definitions';
// Evals (docs/evals.md): cases answered by candidates as durable child runs, graded, and reported.
export { runEval, startEval, evalInput, type EvalOptions, type EvalHandle, type EvalWorkflow } from './evals/run-eval';
export { evalWorkflowType, type EvalWorkflowInput } from './evals/workflow/definitions';
export type {
  EvalCase,
  Candidate,
  CaseSource,
  CaseOutcome,
  CaseReport,
  EvalReport,
  GraderSpec,
  GradeResult,
  ObservedToolCall,
  RecordedAnswer,
  ToolFixture,
  UnrecordedToolPolicy,
} from './core/eval-types';
