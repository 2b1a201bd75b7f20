import { ApplicationFailure } from '@temporalio/common';
import { applyContextView } from '../../core/context-view';
import { failureTypes } from '../../core/errors';
import type { Message, ModelResponse } from '../../core/messages';
import { toolPairingProblems } from '../../core/tool-pairing';
import { withUniqueCallIds } from '../../core/call-ids';
import type { TranscriptStore } from '../../storage/transcript/transcript-store';
import type { ModelCallInput, ModelCallResult } from './model-input';
import type { ToolChoice } from '../../providers/provider-call';

export const summaryPrompt =
  'Summarise the conversation so far for your own later use: the task, what has been done, the facts and results found, ' +
  'and what remains. Be complete but concise; this summary will replace the earlier messages.';

/** The conversation a provider is asked about, already in the form the model sees. */
export interface ConversationRequest {
  messages: Message[];
  tools: string[];
  toolChoice: ToolChoice;
}

/**
 * Rebuilds the whole conversation from the transcript store and the new
 * messages, shows the model its context view of it, and stores the response as
 * the next transcript. A missing transcript is reported with a non-retryable
 * failure, on which the workflow sends the conversation inline instead. Every
 * request passes the tool-call pairing check first: the one place it is checked.
 * The reply's tool-call ids are made unique against the whole conversation here,
 * where both meet, before the reply is stored or seen by anything else.
 */
export async function withTranscript<Response extends ModelResponse>(
  store: TranscriptStore,
  input: ModelCallInput,
  callProvider: (request: ConversationRequest) => Promise<Response>,
): Promise<ModelCallResult & Omit<Response, 'message' | 'finishReason' | 'usage'>> {
  const { conversation, request, summary } = await conversationRequest(store, input);
  if (summary) return callProvider(request);
  const reply = await callProvider(request);
  const response = { ...reply, message: withUniqueCallIds(reply.message, conversation) };
  const transcript = await store
    .append(input.transcript.base, [...input.transcript.messages, response.message])
    .then((id) => ({ id, length: conversation.length + 1 }))
    // Storing is an optimisation: without it the next call sends the conversation inline.
    .catch(() => undefined);
  return { ...response, ...(transcript && { transcript }) };
}

/**
 * The request a model call makes, and the conversation it comes from: what withTranscript sends, and what a batch
 * submits before its answer is read (with withTranscript, later). Checked for tool-call pairing, like every request.
 */
export async function conversationRequest(
  store: TranscriptStore,
  input: ModelCallInput,
): Promise<{ conversation: Message[]; request: ConversationRequest; summary: boolean }> {
  const conversation = await wholeConversation(store, input);
  // The agent's instructions are the system prompt of each call, not part of the stored conversation.
  const instructions: Message[] = input.instructions ? [{ role: 'system', content: input.instructions }] : [];
  if (input.summarizeUpTo !== undefined) {
    // A summary call: the part to summarise (an earlier summary standing in for what it covers) and the request,
    // answered in text. Nothing is stored: the summary becomes part of the view, not of the conversation.
    const older = applyContextView(conversation.slice(0, input.summarizeUpTo), { summary: input.view?.summary });
    const messages: Message[] = [...instructions, ...older, { role: 'user', content: summaryPrompt }];
    return { conversation, request: pairingChecked({ messages, tools: input.tools, toolChoice: 'none' }), summary: true };
  }
  const request = {
    messages: [...instructions, ...applyContextView(conversation, input.view ?? {})],
    tools: input.tools,
    toolChoice: input.toolChoice ?? 'auto',
  };
  return { conversation, request: pairingChecked(request), summary: false };
}

function pairingChecked(request: ConversationRequest): ConversationRequest {
  const problems = toolPairingProblems(request.messages);
  if (problems.length > 0) {
    throw ApplicationFailure.create({
      type: failureTypes.conversationInvariant,
      message: `the conversation breaks the tool-call pairing invariant, a bug in durable-agent: ${problems.join('; ')}`,
      nonRetryable: true,
    });
  }
  return request;
}

async function wholeConversation(store: TranscriptStore, input: ModelCallInput): Promise<Message[]> {
  const { base, baseLength, messages } = input.transcript;
  if (!base) return messages;
  // Any trouble reading the store (a lost chunk, an outage, a chunk sealed with a key this worker lacks) costs
  // an inline resend, never the run: the workflow holds the conversation; the store only saves history bytes.
  const earlier = await store.load(base).catch((error: unknown) => (error as Error)?.message ?? String(error));
  if (!Array.isArray(earlier) || earlier.length !== baseLength) {
    throw ApplicationFailure.create({
      type: failureTypes.transcriptUnavailable,
      message:
        typeof earlier === 'string'
          ? `transcript ${base} cannot be read from this worker's transcript store: ${earlier}`
          : `transcript ${base} is not in this worker's transcript store`,
      nonRetryable: true,
    });
  }
  return [...earlier, ...messages];
}
