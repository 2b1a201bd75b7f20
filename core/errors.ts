/**
 * Failure types, used as ApplicationFailure `type` so that the workflow, the
 * CLI and the Web UI can tell whose fault a failure was.
 */
export const failureTypes = {
  /** The run's input is invalid: fix the input. */
  invalidInput: 'InvalidAgentInput',
  /** The worker is misconfigured: missing API key, unknown tool, missing workspace. */
  configuration: 'AgentConfigurationError',
  /** The provider rejected the request (400/401/403/404/422): retrying will not help. */
  providerRejected: 'ProviderRejectedRequest',
  /** The provider is unavailable or rate limiting (408/409/429/5xx, connection errors): retried. */
  providerUnavailable: 'ProviderUnavailable',
  /** The model's tool arguments do not match the tool's schema: reported back to the model. */
  invalidToolArguments: 'InvalidToolArguments',
  /** The model activity's transcript store lacks a transcript: the workflow resends the conversation inline. */
  transcriptUnavailable: 'TranscriptUnavailable',
  /** The model activity's worker does not know the run's MCP tool listing: the workflow sends the tools with the call. */
  mcpToolsUnavailable: 'McpToolsUnavailable',
  /** An MCP server could not be started, reached or listed: retried; a tool call then gets an error result. */
  mcpServerUnavailable: 'McpServerUnavailable',
  /** A request would break the tool-call pairing invariant: a bug in durable-agent, never sent to a provider. */
  conversationInvariant: 'ConversationInvariantViolated',
  /** A session message the validator refused (empty, oversized, the session is ending): it never entered the conversation. */
  messageRefused: 'MessageRefused',
  /** A session message that was not answered: the session ended, failed or was cancelled first. */
  messageNotAnswered: 'MessageNotAnswered',
  /** A tool refused its input (missing file, path outside the workspace): reported back to the model. */
  toolRefused: 'ToolRefused',
  /** The model's provider cannot take a message's attachment (its type, its size, or none at all): never retried. */
  attachmentNotAccepted: 'AttachmentNotAccepted',
  /** A batch's request got no answer (the batch expired or was cancelled, a server error): the workflow submits it again, a bounded number of times. */
  batchRequestLost: 'BatchRequestLost',
  /** The provider failed a batch as a whole (OpenAI's `failed`), or it was lost more times than a run resubmits: the run ends. */
  batchFailed: 'BatchFailed',
} as const;

/** Base class for errors raised by our own code, so callers can tell them from library errors. */
export class AgentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The user or operator configured something wrong; fails loudly and is never retried. */
export class ConfigurationError extends AgentError {}

/** A tool cannot do what was asked with this input; the message goes back to the model. */
export class ToolInputError extends AgentError {}

/**
 * A message's image or file that the run's provider or model cannot take (no image input, a type or a size beyond its
 * limits): refused before the call, never dropped silently. Choose a model that takes it, or send it as text.
 */
export class AttachmentNotAcceptedError extends AgentError {}
