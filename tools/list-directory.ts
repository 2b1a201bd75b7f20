import { readdir } from 'node:fs/promises';
import { z } from 'zod';
import { describeList } from './approval-texts';
import { defineTool } from './define-tool';
import { workspacePath } from './path-argument';
import { openInWorkspace } from './open-in-workspace';

const maxEntries = 1000;

export const listDirectory = defineTool({
  name: 'list_directory',
  readOnly: true,
  description: 'List the entries of a directory in the workspace; directories end with "/", symlinks with "@".',
  input: z.object({ path: workspacePath('Directory path relative to the workspace').default('.') }),
  activity: { timeout: '30s' },
  describeForApproval: describeList,
  async handler({ path }, { workspace, deniedPaths }) {
    const directory = await openInWorkspace(workspace, path, 'directory', deniedPaths);
    try {
      // Listed through the opened descriptor's own path, so a directory swapped for a symlink meanwhile changes nothing.
      const entries = await readdir(directory.pathOfHandle, { withFileTypes: true });
      const names = entries
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.isSymbolicLink() ? `${entry.name}@` : entry.name))
        .sort();
      if (names.length === 0) return '(empty directory)';
      const shown = names.slice(0, maxEntries).join('\n');
      return names.length > maxEntries ? `${shown}\n[${names.length - maxEntries} more entries not shown]` : shown;
    } finally {
      await directory.handle.close();
    }
  },
});
