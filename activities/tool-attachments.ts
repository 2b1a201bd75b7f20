import { sniffAttachment } from '../core/attachment-sniff';
import { attachmentName, attachmentsProblem, type AttachmentMediaType, type AttachmentPart } from '../core/attachments';
import { ToolInputError } from '../core/errors';
import type { AttachmentStore } from '../storage/attachment-store';
import { boundedInflate } from '../storage/sniff-inflate';

/**
 * A tool's `context.attach` (tools/define-tool.ts): the bytes a tool read are checked against the type they claim and
 * stored, and only their reference goes back, to history and to the model activity that loads it at the provider
 * call (docs/attachments.md). A file that is not what it claims (an ELF named .png) is refused in words for the model:
 * it never becomes an image.
 */
export function attachFor(store: AttachmentStore) {
  return async (bytes: Uint8Array, mediaType: AttachmentMediaType, name?: string): Promise<AttachmentPart> => {
    const shown = attachmentName(name);
    const sniffed = sniffAttachment(bytes, mediaType, { inflate: boundedInflate });
    if (!sniffed.ok) throw new ToolInputError(`${shown ?? 'the file'} cannot be attached: ${sniffed.problem}`);
    const ref = await store.put(bytes);
    return { type: 'attachment', ref, mediaType: sniffed.mediaType, size: bytes.length, ...(shown && { name: shown }) };
  };
}

/** The references a tool returned, checked as any message's are (its own parts, their count and size together). */
export function checkedToolAttachments(toolName: string, attachments: unknown): AttachmentPart[] {
  const problem = attachmentsProblem(attachments);
  if (problem) throw new ToolInputError(`${toolName} returned attachments that are refused: ${problem}`);
  return (attachments as AttachmentPart[] | undefined) ?? [];
}
