import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ToolInputError } from '../core/errors';
import { defineTool } from './define-tool';
import { relativeToWorkspace, resolveInWorkspace } from './workspace';

const maxMatches = 200;
const maxFileBytes = 1024 * 1024;
const maxLineChars = 300;
const skippedDirectories = new Set(['.git', 'node_modules']);

export const searchFiles = defineTool({
  name: 'search_files',
  description:
    'Search file contents in the workspace with a JavaScript regular expression. Returns "file:line: text" for each match (at most 200).',
  input: z.object({
    pattern: z.string().min(1).describe('Regular expression to search for'),
    path: z.string().optional().describe('Directory or file to search, relative to the workspace (default: the whole workspace)'),
  }),
  activity: { timeout: '60s' },
  async handler({ pattern, path: requested }, { workspace, signal }) {
    let regex: RegExp;
    try {
      regex = new RegExp(pattern);
    } catch (error) {
      throw new ToolInputError(`invalid regular expression: ${(error as Error).message}`);
    }
    const start = await resolveInWorkspace(workspace, requested ?? '.');
    const root = await resolveInWorkspace(workspace, '.');
    if (!(await stat(start).catch(() => undefined))) throw new ToolInputError(`path "${requested}" does not exist`);
    const matches: string[] = [];
    let more = false;
    for await (const file of walk(start)) {
      if (signal.aborted) break;
      // Symlinked files are checked like any path the model names, so a link cannot leak outside content.
      const inside = await resolveInWorkspace(workspace, relativeToWorkspace(root, file)).catch(() => undefined);
      if (!inside) continue;
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile() || info.size > maxFileBytes) continue;
      const text = await readFile(file, 'utf8');
      const lines = text.split('\n');
      for (let index = 0; index < lines.length; index++) {
        if (!regex.test(lines[index])) continue;
        if (matches.length === maxMatches) {
          more = true;
          break;
        }
        matches.push(`${relativeToWorkspace(root, file)}:${index + 1}: ${lines[index].slice(0, maxLineChars)}`);
      }
      if (more) break;
    }
    if (matches.length === 0) return `no matches for /${pattern}/`;
    return more ? `${matches.join('\n')}\n[stopped after ${maxMatches} matches]` : matches.join('\n');
  },
});

async function* walk(start: string): AsyncGenerator<string> {
  const info = await stat(start);
  if (info.isFile()) {
    yield start;
    return;
  }
  const entries = await readdir(start, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const full = path.join(start, entry.name);
    if (entry.isDirectory()) {
      if (!skippedDirectories.has(entry.name)) yield* walk(full);
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      yield full;
    }
  }
}
