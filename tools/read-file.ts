import { z } from 'zod';
import { maxToolOutputChars } from '../core/limits';
import { describeRead } from './approval-texts';
import { defineTool } from './define-tool';
import { workspacePath } from './path-argument';
import { openInWorkspace } from './open-in-workspace';

// Read a little past the output bound, so truncation can report the real size without loading a huge file.
const readLimitBytes = maxToolOutputChars * 4;

export const readFile = defineTool({
  name: 'read_file',
  readOnly: true,
  description:
    'Read a text file in the workspace. Returns its contents (long files are truncated). Only regular files with a single hard link are read.',
  input: z.object({ path: workspacePath('File path relative to the workspace') }),
  activity: { timeout: '30s' },
  describeForApproval: describeRead,
  async handler({ path }, { workspace, deniedPaths }) {
    // Opened without following a final symlink and never blocking; a FIFO, device or hard link is refused there.
    const { handle, info } = await openInWorkspace(workspace, path, 'file', deniedPaths);
    try {
      const buffer = Buffer.alloc(Math.min(info.size, readLimitBytes));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      return info.size > bytesRead ? `${text}\n[file is ${info.size} bytes; only the first ${bytesRead} were read]` : text;
    } finally {
      await handle.close();
    }
  },
});
