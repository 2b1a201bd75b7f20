import { condition, defineSignal, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';
import type { InlineActivities } from './inline-activities';

/** A user message with its image inline: the base64 in the message, as an engine without references carries it. */
export interface InlineMessage {
  content: string;
  image: { mediaType: string; base64: string };
}

export const inlineMessageUpdate = defineUpdate<string, [InlineMessage]>('inlineMessage');
export const inlineEndSignal = defineSignal('inlineEnd');

const { inlineModel } = proxyActivities<InlineActivities>({ startToCloseTimeout: '1 minute' });

/**
 * The baseline of the attachments benchmark: a session shaped as ours is (an update per message, the conversation in
 * the workflow, a model activity given only the messages new since its last call, as our transcripts do), with the
 * one difference measured: the image rides in the message, base64, instead of by reference. Its best case: an agent
 * that sends the whole conversation to every call (the AI SDK plugin's way) passes Temporal's 2 MB payload limit at
 * the second 1 MB image.
 */
export async function inlineAttachmentSession(): Promise<number> {
  const conversation: unknown[] = [];
  let sent = 0;
  let ended = false;
  setHandler(inlineMessageUpdate, async (message) => {
    conversation.push({ role: 'user', ...message });
    const reply = await inlineModel(conversation.slice(sent));
    conversation.push({ role: 'assistant', content: reply });
    sent = conversation.length;
    return reply;
  });
  setHandler(inlineEndSignal, () => {
    ended = true;
  });
  await condition(() => ended);
  return conversation.length;
}
