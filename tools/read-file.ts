import { open } from 'node:fs/promises';
import { z } from 'zod';
import { ToolInputError } from '../core/errors';
import { maxToolOutputChars } from '../core/limits';
import { defineTool } from './define-tool';
import { resolveInWorkspace } from './workspace';

// Read a little past the output bound, so truncation can report the real size without loading a huge file.
const readLimitBytes = maxToolOutputChars * 4;

export const readFile = defineTool({
  name: 'read_file',
  description: 'Read a text file in the workspace. Returns its contents (long files are truncated).',
  input: z.object({ path: z.string().describe('File path relative to the workspace') }),
  activity: { timeout: '30s' },
  async handler({ path }, { workspace }) {
    const file = await resolveInWorkspace(workspace, path);
    const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
      throw new ToolInputError(error.code === 'ENOENT' ? `file "${path}" does not exist` : `cannot open "${path}": ${error.code}`);
    });
    try {
      const info = await handle.stat();
      if (info.isDirectory()) throw new ToolInputError(`"${path}" is a directory; use list_directory`);
      const buffer = Buffer.alloc(Math.min(info.size, readLimitBytes));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      return info.size > bytesRead ? `${text}\n[file is ${info.size} bytes; only the first ${bytesRead} were read]` : text;
    } finally {
      await handle.close();
    }
  },
});
