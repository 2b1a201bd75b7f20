import { ApplicationFailure } from '@temporalio/common';
import { applyContextView } from '../../agent/context-view';
import { failureTypes } from '../../agent/errors';
import type { Message, ModelResponse } from '../../agent/messages';
import type { TranscriptStore } from '../transcript/transcript-store';
import type { ModelCallInput, ModelTurn } from './model-input';

export const summaryPrompt =
  'Summarise the conversation so far for your own later use: the task, what has been done, the facts and results found, ' +
  'and what remains. Be complete but concise; this summary will replace the earlier messages.';

/**
 * Rebuilds the whole conversation from the transcript store and the new
 * messages, shows the model its context view of it, and stores the response as
 * the next transcript. A missing transcript is reported with a non-retryable
 * failure, on which the workflow sends the conversation inline instead.
 */
export async function withTranscript(
  store: TranscriptStore,
  input: ModelCallInput,
  callProvider: (messages: Message[], tools: string[]) => Promise<ModelResponse>,
): Promise<ModelTurn> {
  const conversation = await wholeConversation(store, input);
  if (input.summarizeUpTo !== undefined) {
    // A summary call: the part to summarise (an earlier summary standing in for what it covers) and the request,
    // without tools. Nothing is stored: the summary becomes part of the view, not of the conversation.
    const older = applyContextView(conversation.slice(0, input.summarizeUpTo), { summary: input.view?.summary });
    return callProvider([...older, { role: 'user', content: summaryPrompt }], []);
  }
  const response = await callProvider(applyContextView(conversation, input.view ?? {}), input.tools);
  const transcript = await store
    .append(input.transcript.base, [...input.transcript.messages, response.message])
    .then((id) => ({ id, length: conversation.length + 1 }))
    // Storing is an optimisation: without it the next call sends the conversation inline.
    .catch(() => undefined);
  return { ...response, ...(transcript && { transcript }) };
}

async function wholeConversation(store: TranscriptStore, input: ModelCallInput): Promise<Message[]> {
  const { base, baseLength, messages } = input.transcript;
  if (!base) return messages;
  const earlier = await store.load(base).catch(() => undefined);
  if (!earlier || earlier.length !== baseLength) {
    throw ApplicationFailure.create({
      type: failureTypes.transcriptUnavailable,
      message: `transcript ${base} is not in this worker's transcript store`,
      nonRetryable: true,
    });
  }
  return [...earlier, ...messages];
}
