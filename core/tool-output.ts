import type { AttachmentPart } from './attachments';

/**
 * What a tool's handler returns: the text the model reads, or that text with images or files beside it (a read_file
 * of a PNG), already checked and stored by the tool context's `attach` (docs/attachments.md). The bytes never ride
 * here: only their references.
 */
export type ToolOutput = string | ToolOutputWithAttachments;

export interface ToolOutputWithAttachments {
  content: string;
  attachments: AttachmentPart[];
}

/** The text of a tool's output, and its references (none for text alone). */
export function toolOutputParts(output: ToolOutput): ToolOutputWithAttachments {
  return typeof output === 'string' ? { content: output, attachments: [] } : output;
}
