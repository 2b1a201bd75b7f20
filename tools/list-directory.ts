import { readdir } from 'node:fs/promises';
import { z } from 'zod';
import { ToolInputError } from '../core/errors';
import { defineTool } from './define-tool';
import { resolveInWorkspace } from './workspace';

const maxEntries = 1000;

export const listDirectory = defineTool({
  name: 'list_directory',
  description: 'List the entries of a directory in the workspace; directories end with "/".',
  input: z.object({ path: z.string().default('.').describe('Directory path relative to the workspace') }),
  activity: { timeout: '30s' },
  async handler({ path }, { workspace }) {
    const directory = await resolveInWorkspace(workspace, path);
    const entries = await readdir(directory, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new ToolInputError(`directory "${path}" does not exist`);
      if (error.code === 'ENOTDIR') throw new ToolInputError(`"${path}" is a file; use read_file`);
      throw error;
    });
    const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
    if (names.length === 0) return '(empty directory)';
    const shown = names.slice(0, maxEntries).join('\n');
    return names.length > maxEntries ? `${shown}\n[${names.length - maxEntries} more entries not shown]` : shown;
  },
});
