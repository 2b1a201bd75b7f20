import type { ApprovalDescription } from '../../core/approval-description';
import type { ContextView } from '../../core/context-view';
import type { McpListingReference } from '../../mcp/types';
import type { Message, ModelResponse } from '../../core/messages';
import type { ModelSettings } from '../../core/agent-spec';
import type { ToolChoice } from '../../providers/provider-call';

/**
 * The conversation as the workflow passes it to a model call: a transcript id
 * that stands for the first `baseLength` messages, plus the messages added since.
 * Without a base, `messages` is the whole conversation (the inline fallback).
 */
export interface TranscriptInput {
  base?: string;
  baseLength: number;
  messages: Message[];
}

export interface ModelCallInput {
  /** `provider:model` */
  model: string;
  /** The agent that has the conversation; its outputSchema, if any, comes from the worker's registry. */
  agent?: string;
  /** The agent's instructions: the system prompt of this call (not part of the stored conversation). */
  instructions?: string;
  transcript: TranscriptInput;
  /** Names of the tools offered (tools, subagents, transfer_to_<agent>); their schemas come from the worker's registry. */
  tools: string[];
  /** The run's MCP tool listing, by id: the schemas of the MCP tools among `tools` come from it. */
  mcp?: McpListingReference;
  /** `none`: the model must answer in text (the tools are still defined where a provider needs them). Default `auto`. */
  toolChoice?: ToolChoice;
  modelSettings?: ModelSettings;
  /** The agent has an outputSchema: ask for it natively, and check a final answer against it. */
  expectsOutput?: boolean;
  view?: ContextView;
  /** When set, the call summarises the messages before this index instead of answering: no tools, nothing stored. */
  summarizeUpTo?: number;
  /**
   * Publish the text to the workflow's stream as it is written, as this model call (core/stream-events.ts): set for
   * runs started with `stream: true`. The whole response is returned either way.
   */
  streamAs?: string;
  /**
   * The tools the run's rules have a person approve (absent, in calls of older workflows: only the tools' own
   * `needsApproval`; `skip`: nothing is asked), and how many of a reply's calls may run: the activity describes, from
   * the real arguments, each call that will ask a person.
   */
  approval?: { tools: string[]; skip: boolean };
  maxToolCalls?: number;
  /** The run's workspace: an approval shows a path argument relative to it, as the tool will open it. */
  workspace?: string;
}

export interface ModelCallResult extends ModelResponse {
  /** The transcript that now includes this response, when it could be stored. */
  transcript?: { id: string; length: number };
  /** A final answer that matched the agent's outputSchema, parsed. */
  output?: unknown;
  /** Why a final answer did not match the agent's outputSchema, for the model to put right. */
  outputProblem?: string;
  /** The ids of the reply's tool calls that a person must approve first (the tools' own needsApproval). */
  needsApproval?: string[];
  /** What a person is shown for each call that will ask for approval, by call id (replies of older runs have none). */
  approvalDescriptions?: Record<string, ApprovalDescription>;
}
