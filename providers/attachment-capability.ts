import { describeAttachment, formatBytes, isImage, type AttachmentMediaType, type AttachmentPart } from '../core/attachments';

/**
 * What a provider's models take of a message's attachments (docs/attachments.md). A provider without one takes none:
 * a run that sends it an attachment is refused before the call, never given the text alone.
 */
export interface AttachmentCapability {
  /** The media types it takes. Text files (text/plain, text/markdown) go as text, so any provider may list them. */
  mediaTypes: readonly AttachmentMediaType[];
  /** Bytes of one image, at most (the API's own limit). */
  maxImageBytes: number;
  /** Bytes of one other file (a PDF), at most. */
  maxFileBytes: number;
  /** Bytes of every attachment of one request together, at most. */
  maxRequestBytes: number;
  /** Whether a model takes images at all (a text-only model does not); every model when absent. */
  acceptsImages?(model: string): boolean;
}

/**
 * Why a provider's model cannot be sent these attachments, in words, or undefined when it can. Asked before each call
 * (the model activity) and before a run starts (the CLI and startAgent's callers, through assertRegistered).
 */
export function attachmentRefusal(
  provider: { name: string; attachments?: AttachmentCapability },
  model: string,
  parts: readonly Pick<AttachmentPart, 'mediaType' | 'size' | 'name'>[],
  options: { requestTotal?: boolean } = {},
): string | undefined {
  if (parts.length === 0) return undefined;
  const capability = provider.attachments;
  const where = `${provider.name}:${model}`;
  if (!capability)
    return `${where} takes no attachments (the provider declares none); send ${describeAttachment(parts[0]!)} to a model that does`;
  for (const part of parts) {
    if (!capability.mediaTypes.includes(part.mediaType)) {
      return `${where} does not take ${part.mediaType} attachments (${describeAttachment(part)}); it takes ${capability.mediaTypes.join(', ')}`;
    }
    if (isImage(part.mediaType) && capability.acceptsImages && !capability.acceptsImages(model)) {
      return `${where} takes no images (${describeAttachment(part)}): choose a model with image input`;
    }
    const limit = isImage(part.mediaType) ? capability.maxImageBytes : capability.maxFileBytes;
    if (part.size > limit) {
      return `${describeAttachment(part)} is over ${provider.name}'s limit of ${formatBytes(limit)} for ${isImage(part.mediaType) ? 'an image' : 'a file'}`;
    }
  }
  const total = parts.reduce((sum, part) => sum + part.size, 0);
  if (options.requestTotal !== false && total > capability.maxRequestBytes) {
    return `the attachments of this request come to ${formatBytes(total)}, over ${provider.name}'s limit of ${formatBytes(capability.maxRequestBytes)} a request`;
  }
  return undefined;
}
