import { mkdir, writeFile as writeToDisk } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ToolInputError } from '../core/errors';
import { maxWriteFileBytes } from '../core/limits';
import { defineTool } from './define-tool';
import { resolveInWorkspace } from './workspace';

export const writeFile = defineTool({
  name: 'write_file',
  description: 'Create or overwrite a text file in the workspace. Parent directories are created.',
  input: z.object({
    path: z.string().describe('File path relative to the workspace'),
    content: z.string().describe('The full new contents of the file'),
  }),
  activity: { timeout: '30s' },
  async handler({ path: requested, content }, { workspace }) {
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > maxWriteFileBytes) {
      throw new ToolInputError(`content is ${bytes} bytes; write_file accepts at most ${maxWriteFileBytes}`);
    }
    const file = await resolveInWorkspace(workspace, requested);
    await mkdir(path.dirname(file), { recursive: true });
    // Writing the same content twice leaves the same file, so a retried attempt is harmless.
    await writeToDisk(file, content, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EISDIR') throw new ToolInputError(`"${requested}" is a directory`);
      throw error;
    });
    return `wrote ${bytes} bytes to ${requested}`;
  },
});
