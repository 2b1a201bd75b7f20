import { describeAttachment, isImage, isText, type AttachmentPart, type LoadedAttachment } from '../core/attachments';

/**
 * What every provider's converter needs of an attachment the model activity loaded (core/attachments.ts,
 * LoadedAttachment). Each converter turns these into its own wire parts; nothing else reads the bytes.
 */

/** The attachment's bytes in base64; an error (a bug: the model activity loads every one) when it was not loaded. */
export function attachmentData(part: AttachmentPart): string {
  const data = (part as Partial<LoadedAttachment>).data;
  if (typeof data !== 'string') throw new Error(`attachment ${part.ref} reached the provider without its bytes`);
  return data;
}

/** `data:<type>;base64,<bytes>`, as OpenAI's image and file parts take them. */
export function dataUrl(part: AttachmentPart): string {
  return `data:${part.mediaType};base64,${attachmentData(part)}`;
}

/** A text file as the text the model reads: its name and type, then its content. */
export function attachmentText(part: AttachmentPart): string {
  const text = Buffer.from(attachmentData(part), 'base64').toString('utf8');
  return `Attached file ${part.name ?? 'unnamed'} (${part.mediaType}):\n\n${text}`;
}

/**
 * The line before a tool's images where a provider's tool messages take text only (OpenAI Chat, the AI SDK's chat
 * packages): they follow the round's results in a user message, and this names the call they came from.
 */
export function toolAttachmentsIntro(message: { toolCallId: string; toolName: string }): string {
  return `The result of tool call ${message.toolCallId} (${message.toolName}) attached these:`;
}

export type AttachmentKind = 'image' | 'document' | 'text' | 'omitted';

/** What the model reads in place of an attachment left out of this request (LoadedAttachment.omitted). */
export function omittedText(part: AttachmentPart): string {
  return `[${describeAttachment(part)}, attached earlier, is not sent again: it no longer fits the request's limit beside newer attachments]`;
}

export function attachmentKind(part: AttachmentPart): AttachmentKind {
  if ((part as LoadedAttachment).omitted) return 'omitted';
  if (isImage(part.mediaType)) return 'image';
  if (isText(part.mediaType)) return 'text';
  return 'document';
}
