import { z } from 'zod';
import type { FileHandle } from 'node:fs/promises';
import { attachmentBounds, describeAttachment, formatBytes, isImage, mediaTypeOfName } from '../core/attachments';
import { ToolInputError } from '../core/errors';
import { maxToolOutputChars } from '../core/limits';
import type { ToolOutput } from '../core/tool-output';
import { describeRead } from './approval-texts';
import { defineTool, type ToolContext } from './define-tool';
import { workspacePath } from './path-argument';
import { openInWorkspace } from './open-in-workspace';

// Read a little past the output bound, so truncation can report the real size without loading a huge file.
const readLimitBytes = maxToolOutputChars * 4;

export const readFile = defineTool({
  name: 'read_file',
  readOnly: true,
  description:
    'Read a file in the workspace. Returns the contents of a text file (long files are truncated); an image (.png, .jpg, .webp, .gif) or a PDF is shown to you as it is, when your model takes it. Only regular files with a single hard link are read.',
  input: z.object({ path: workspacePath('File path relative to the workspace') }),
  activity: { timeout: '30s' },
  describeForApproval: describeRead,
  async handler({ path }, context) {
    // Opened without following a final symlink and never blocking; a FIFO, device or hard link is refused there.
    const { handle, info } = await openInWorkspace(context.workspace, path, 'file', context.deniedPaths);
    try {
      const mediaType = mediaTypeOfName(path);
      if (mediaType && (isImage(mediaType) || mediaType === 'application/pdf')) {
        return await attached(handle, info.size, path, mediaType, context);
      }
      const buffer = Buffer.alloc(Math.min(info.size, readLimitBytes));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      return info.size > bytesRead ? `${text}\n[file is ${info.size} bytes; only the first ${bytesRead} were read]` : text;
    } finally {
      await handle.close();
    }
  },
});

/**
 * An image or a PDF goes to the model as itself, by reference: its bytes checked against the type its name claims
 * and stored (context.attach), never in history. A file that is not what its name says (an ELF named .png) is
 * refused in words, never read out as an image or as text.
 */
async function attached(
  handle: FileHandle,
  size: number,
  path: string,
  mediaType: Parameters<NonNullable<ToolContext['attach']>>[1],
  context: ToolContext,
): Promise<ToolOutput> {
  if (!context.attach) return `[${path} is ${mediaType}: this worker cannot attach files, so it cannot be shown]`;
  if (size > attachmentBounds.maxFileBytes) {
    throw new ToolInputError(
      `${path} is ${formatBytes(size)}; at most ${formatBytes(attachmentBounds.maxFileBytes)} can be attached`,
    );
  }
  // Read to the size fstat gave and one byte past it: a file that grows while it is read is refused, not cut.
  const buffer = Buffer.alloc(size + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
    if (length > size) throw new ToolInputError(`${path} grew while it was read`);
  }
  const part = await context.attach(buffer.subarray(0, length), mediaType, path);
  return { content: `${describeAttachment(part)} is attached below.`, attachments: [part] };
}
