import { z } from 'zod';
import { describeSearch } from './approval-texts';
import { defineTool } from './define-tool';
import { workspacePath } from './path-argument';
import { searchWorkspace } from './search-workspace';

export const searchFiles = defineTool({
  name: 'search_files',
  readOnly: true,
  description:
    'Search file contents in the workspace with a regular expression in RE2 syntax (as in Go or ripgrep: no ' +
    'backreferences, no lookahead or lookbehind; flags inline, e.g. (?i) for case-insensitive). Returns ' +
    '"file:line: text" for each matching line (at most 200). Skips .git and node_modules, files over 1 MB, and ' +
    'searches only the first 4096 characters of a line; stops after 20 s, saying so.',
  input: z.object({
    pattern: z.string().min(1).max(2000).describe('Regular expression, RE2 syntax'),
    path: workspacePath('Directory or file to search, relative to the workspace (default: the whole workspace)').optional(),
  }),
  activity: { timeout: '60s' },
  describeForApproval: describeSearch,
  handler: ({ pattern, path }, { workspace, signal, deniedPaths }) =>
    searchWorkspace(workspace, pattern, path, signal, undefined, deniedPaths),
});
