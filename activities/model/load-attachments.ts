import { sniffAttachment } from '../../core/attachment-sniff';
import { describeAttachment, type AttachmentPart, type LoadedAttachment } from '../../core/attachments';
import { AttachmentNotAcceptedError } from '../../core/errors';
import type { Message } from '../../core/messages';
import { attachmentRefusal } from '../../providers/attachment-capability';
import type { ModelProvider } from '../../providers/provider-call';
import type { AttachmentStore } from '../../storage/attachment-store';

/**
 * The conversation of one call with every attachment's bytes, for the provider to convert (providers/attachment-parts.ts):
 * the provider's limits checked first (a model that takes no images, a type or size beyond its API's limits is an
 * AttachmentNotAcceptedError, never a silent drop), then each reference loaded once from the store and checked again
 * (its size, and the sniffer on its bytes: a reference forged to name other bytes is refused). The bytes live in this
 * call's memory only: the transcript and the history keep the references. Earlier messages' attachments that no
 * longer fit the provider's request limit beside the newer ones are left out, and said to be (olderOverTheLimit).
 */
export async function withAttachmentBytes(
  conversation: Message[],
  provider: ModelProvider,
  model: string,
  store: AttachmentStore | undefined,
): Promise<Message[]> {
  const messages = withToolAttachmentsItCanTake(conversation, provider, model);
  const parts = messages.flatMap(attachmentsOf);
  if (parts.length === 0) return messages;
  // Each attachment against the model's types and sizes; the request's total is the newest message's to meet.
  const refusal = attachmentRefusal(provider, model, parts, { requestTotal: false });
  if (refusal) throw new AttachmentNotAcceptedError(refusal);
  const newest = [...messages].reverse().find((message) => message.role === 'user' && message.attachments?.length);
  const newestRefusal = attachmentRefusal(provider, model, newest?.role === 'user' ? (newest.attachments ?? []) : []);
  if (newestRefusal) throw new AttachmentNotAcceptedError(newestRefusal);
  if (!store) throw new AttachmentNotAcceptedError('this worker has no attachment store (ModelActivityOptions.attachments)');
  const omitted = olderOverTheLimit(messages, provider.attachments!.maxRequestBytes);
  const loaded = new Map<string, Promise<string>>();
  const dataOf = (part: AttachmentPart) => {
    let data = loaded.get(part.ref);
    if (!data) {
      data = store.get(part.ref).then((bytes) => checked(part, bytes));
      loaded.set(part.ref, data);
    }
    return data;
  };
  return Promise.all(
    messages.map(async (message) => {
      if ((message.role !== 'user' && message.role !== 'tool') || !message.attachments?.length) return message;
      const attachments = await Promise.all(
        message.attachments.map(async (part): Promise<LoadedAttachment> =>
          omitted.has(part) ? { ...part, omitted: true } : { ...part, data: await dataOf(part) },
        ),
      );
      return { ...message, attachments };
    }),
  );
}

function checked(part: AttachmentPart, bytes: Uint8Array): string {
  if (bytes.length !== part.size) {
    throw new AttachmentNotAcceptedError(`${describeAttachment(part)}: the stored bytes are ${bytes.length}, not ${part.size}`);
  }
  const sniffed = sniffAttachment(bytes, part.mediaType);
  if (!sniffed.ok) throw new AttachmentNotAcceptedError(`${describeAttachment(part)}: ${sniffed.problem}`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * The attachments of earlier messages left out of this request because, with every newer one, they would pass the
 * provider's limit a request (a long session of images): newest kept first. The model reads a line in place of each
 * (providers/attachment-parts.ts, omittedText), so nothing goes missing unsaid; the conversation keeps them all.
 */
function olderOverTheLimit(messages: Message[], maxRequestBytes: number): Set<AttachmentPart> {
  const omitted = new Set<AttachmentPart>();
  let total = 0;
  for (const message of [...messages].reverse()) {
    for (const part of [...attachmentsOf(message)].reverse()) {
      if (total + part.size > maxRequestBytes) omitted.add(part);
      else total += part.size;
    }
  }
  return omitted;
}

/** A user message's attachments, or the images and files a tool returned (a read_file of a PNG). */
function attachmentsOf(message: Message): AttachmentPart[] {
  return message.role === 'user' || message.role === 'tool' ? (message.attachments ?? []) : [];
}

/**
 * A tool's images and files that this model cannot take (a text-only model, a provider that declares none, a PDF where
 * it takes images only) are left out of the call and said in the tool's result: the model reads that the file was
 * there and why it was not shown. Never a silent drop, and never a failed run for a file the model asked to read;
 * a user's own attachment, by contrast, is refused (the person chose the model and the file).
 */
function withToolAttachmentsItCanTake(messages: Message[], provider: ModelProvider, model: string): Message[] {
  return messages.map((message) => {
    if (message.role !== 'tool' || !message.attachments?.length) return message;
    const kept: AttachmentPart[] = [];
    const lines: string[] = [];
    for (const part of message.attachments) {
      const refusal = attachmentRefusal(provider, model, [part], { requestTotal: false });
      if (refusal) lines.push(`[The attachment could not be shown: ${refusal}]`);
      else kept.push(part);
    }
    if (lines.length === 0) return message;
    const { attachments: _all, ...result } = message;
    return { ...result, content: [message.content, ...lines].join('\n'), ...(kept.length > 0 && { attachments: kept }) };
  });
}
