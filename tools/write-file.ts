import { z } from 'zod';
import { ToolInputError } from '../core/errors';
import { maxWriteFileBytes } from '../core/limits';
import { describeWrite } from './approval-texts';
import { defineTool } from './define-tool';
import { workspacePath } from './path-argument';
import { openInWorkspace } from './open-in-workspace';

export const writeFile = defineTool({
  name: 'write_file',
  description:
    'Create or overwrite a text file in the workspace. Parent directories are created. Files with more than one hard link are not overwritten.',
  input: z.object({
    path: workspacePath('File path relative to the workspace'),
    content: z.string().describe('The full new contents of the file'),
  }),
  activity: { timeout: '30s' },
  describeForApproval: describeWrite,
  async handler({ path: requested, content }, { workspace, deniedPaths }) {
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > maxWriteFileBytes) {
      throw new ToolInputError(`content is ${bytes} bytes; write_file accepts at most ${maxWriteFileBytes}`);
    }
    // Parents are created and the file opened (not truncated) one component at a time from the workspace's
    // descriptor; only once the opened file has passed the checks is it truncated, through that descriptor.
    const { handle } = await openInWorkspace(workspace, requested, 'write', deniedPaths);
    try {
      await handle.truncate(0);
      // Writing the same content twice leaves the same file, so a retried attempt is harmless.
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
    return `wrote ${bytes} bytes to ${requested}`;
  },
});
