import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  attachmentName,
  attachmentSetProblem,
  describeAttachment,
  isAttachmentMediaType,
  isImage,
  type AttachmentMediaType,
  type AttachmentPart,
} from '../../core/attachments';
import { ToolInputError } from '../../core/errors';
import type { ToolOutputWithAttachments } from '../../core/tool-output';
import { toolResultText } from '../../mcp/tool-result';

type Attach = (bytes: Uint8Array, mediaType: AttachmentMediaType, name?: string) => Promise<AttachmentPart>;
type ContentItem = CallToolResult['content'][number];

/**
 * An MCP tool's result with its images (and PDF or image resources) as attachments, like a read_file of a PNG: each
 * decoded, checked against the type the server claims and stored (the tool context's attach, activities/tool-attachments.ts),
 * and named in the text where it stood. The server is untrusted: what is not what it claims, is not base64, or would
 * pass a message's bounds is said in words in its place (`[image (image/png) not shown: …]`), never sent as an image,
 * and the rest of the result still goes to the model. Everything else is the text toolResultText gives.
 */
export async function mcpResultWithAttachments(result: CallToolResult, attach: Attach): Promise<ToolOutputWithAttachments> {
  const lines: string[] = [];
  const attachments: AttachmentPart[] = [];
  for (const item of result.content) {
    const file = attachableFile(item);
    if (!file) {
      lines.push(toolResultText({ content: [item] }));
      continue;
    }
    const notShown = (why: string) => lines.push(`[${file.kind} (${file.mediaType}) not shown: ${why}]`);
    const bytes = Buffer.from(file.data, 'base64');
    // Node skips what is not base64: only text that encodes back to itself is taken.
    if (bytes.length === 0 || bytes.toString('base64') !== file.data) {
      notShown('its data is not base64');
      continue;
    }
    const over = attachmentSetProblem([...attachments, { size: bytes.length }]);
    if (over) {
      notShown(over);
      continue;
    }
    try {
      const part = await attach(bytes, file.mediaType, file.name);
      attachments.push(part);
      lines.push(`[${describeAttachment(part)} attached]`);
    } catch (error) {
      if (!(error instanceof ToolInputError)) throw error;
      notShown(error.message);
    }
  }
  if (lines.length === 0 && result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent));
  return { content: lines.join('\n'), attachments };
}

interface AttachableFile {
  kind: 'image' | 'resource';
  data: string;
  mediaType: AttachmentMediaType;
  name?: string;
}

/** An image content block, or a blob resource that is an image or a PDF: what a model can be shown. */
function attachableFile(item: ContentItem): AttachableFile | undefined {
  if (item.type === 'image' && isImage(item.mimeType) && isAttachmentMediaType(item.mimeType)) {
    return { kind: 'image', data: item.data, mediaType: item.mimeType };
  }
  if (item.type !== 'resource' || !('blob' in item.resource)) return undefined;
  const { mimeType, blob, uri } = item.resource;
  if (!isAttachmentMediaType(mimeType) || !(isImage(mimeType) || mimeType === 'application/pdf')) return undefined;
  const name = attachmentName(decodeURIComponentSafely(uri.split(/[?#]/)[0] ?? ''));
  return { kind: 'resource', data: blob, mediaType: mimeType, ...(name && { name }) };
}

function decodeURIComponentSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
