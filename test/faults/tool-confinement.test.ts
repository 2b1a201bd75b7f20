import { execFileSync } from 'node:child_process';
import { link, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Tool } from '../../tools';
import { listDirectory } from '../../tools/list-directory';
import { readFile as readFileTool } from '../../tools/read-file';
import { searchFiles } from '../../tools/search-files';
import { writeFile as writeFileTool } from '../../tools/write-file';
import { openaiReply } from '../support/fake-model-server';
import { scriptByPrompt, toolResultsOf } from '../support/script-by-prompt';
import { startSymlinkSwapper } from '../support/symlink-swapper';
import { createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

// Issue 18, item 4: the workspace could be left through a symlink swapped between check and open, through a hard
// link, and a FIFO's blocking open froze the worker's file I/O.

const bed = useTestBed();

/** A directory holding `workspace/` and, beside it, `outside/` with a secret and a file only it has. */
async function workspaceBesideOutside() {
  const parent = await makeWorkspace();
  const workspace = path.join(parent, 'workspace');
  const outside = path.join(parent, 'outside');
  await mkdir(path.join(workspace, 'inside'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(workspace, 'inside', 'f.txt'), 'inside');
  await writeFile(path.join(outside, 'f.txt'), 'OUTSIDE SECRET');
  await writeFile(path.join(outside, 'only-outside.txt'), 'OUTSIDE SECRET');
  return { parent, workspace, outside };
}

/** Every name, size and modification time under a directory, to compare before and after. */
async function snapshot(directory: string): Promise<string[]> {
  const names = await readdir(directory, { recursive: true });
  const entries = await Promise.all(
    names.map(async (name) => {
      const info = await stat(path.join(directory, name));
      return `${name} ${info.size} ${info.mtimeMs}`;
    }),
  );
  return entries.sort();
}

type Outcome = { ok: true; output: string } | { ok: false; error: string };

async function attempt<Input>(tool: Tool<Input>, input: Input, workspace: string): Promise<Outcome> {
  try {
    const output = await tool.handler(input, { workspace, signal: new AbortController().signal });
    return { ok: true, output: typeof output === 'string' ? output : output.content };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

it('never reads, writes or lists outside while another process swaps symlinks between an inside and an outside directory', async () => {
  const { workspace, outside } = await workspaceBesideOutside();
  const before = await snapshot(outside);
  // One link swapped as a directory on the way (swap/f.txt), one as the final component (link.txt).
  await symlink('inside', path.join(workspace, 'swap'));
  await symlink('inside/f.txt', path.join(workspace, 'link.txt'));
  const swappers = await Promise.all([
    startSymlinkSwapper(path.join(workspace, 'swap'), 'inside', outside),
    startSymlinkSwapper(path.join(workspace, 'link.txt'), 'inside/f.txt', path.join(outside, 'f.txt')),
  ]);
  const outcomes: Outcome[] = [];
  try {
    for (let round = 0; round < 30; round++) {
      outcomes.push(
        ...(await Promise.all([
          ...['swap/f.txt', 'link.txt', 'swap/f.txt', 'link.txt', 'swap/only-outside.txt'].map((file) =>
            attempt(readFileTool, { path: file }, workspace),
          ),
          attempt(writeFileTool, { path: 'swap/f.txt', content: `written ${round}` }, workspace),
          attempt(writeFileTool, { path: 'link.txt', content: `written ${round}` }, workspace),
          attempt(writeFileTool, { path: `swap/new-${round}.txt`, content: 'new' }, workspace),
          attempt(writeFileTool, { path: `swap/sub-${round}/new.txt`, content: 'new' }, workspace),
          attempt(listDirectory, { path: 'swap' }, workspace),
          attempt(searchFiles, { pattern: 'SECRET|inside|written' }, workspace),
        ])),
      );
    }
  } finally {
    const swaps = await Promise.all(swappers.map((swapper) => swapper.stop()));
    // The race was on: both links kept changing target while the tools ran.
    expect(Math.min(...swaps)).toBeGreaterThan(100);
  }

  for (const outcome of outcomes) {
    if (outcome.ok) {
      expect(outcome.output).not.toContain('SECRET');
      // A listing or search that went outside would name the file only the outside directory has.
      expect(outcome.output).not.toContain('only-outside');
    } else {
      expect(outcome.error).not.toContain('SECRET');
    }
  }
  // Some calls found the links pointing inside and worked; others met them pointing outside and were refused.
  expect(outcomes.filter((outcome) => outcome.ok).length).toBeGreaterThan(0);
  expect(outcomes.filter((outcome) => !outcome.ok && outcome.error.includes('outside the workspace')).length).toBeGreaterThan(0);
  expect(await snapshot(outside)).toEqual(before);
  expect(await readFile(path.join(outside, 'f.txt'), 'utf8')).toBe('OUTSIDE SECRET');
});

it('refuses to read or overwrite a hard link to a file outside the workspace', async () => {
  const { workspace, outside } = await workspaceBesideOutside();
  await link(path.join(outside, 'f.txt'), path.join(workspace, 'hard.txt'));
  const before = await snapshot(outside);
  const received = scriptByPrompt(bed.server, {
    'use the hard link': [
      openaiReply({
        toolCalls: [
          { id: 'read', name: 'read_file', arguments: { path: 'hard.txt' } },
          { id: 'write', name: 'write_file', arguments: { path: 'hard.txt', content: 'overwritten' } },
          { id: 'search', name: 'search_files', arguments: { pattern: 'SECRET' } },
        ],
      }),
      openaiReply({ content: 'done' }),
    ],
  });
  const taskQueue = uniqueTaskQueue('hard-link');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const { result } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, {
      prompt: 'use the hard link',
      model: 'openai:gpt-4o-mini',
      tools: ['read_file', 'write_file', 'search_files'],
      workspace,
    }),
  );

  expect(result.status).toBe('completed');
  const refusal = '"hard.txt" has 2 hard links; files with more than one are refused (one may be outside the workspace)';
  expect(toolResultsOf(received['use the hard link'][1])).toEqual({
    read: `Error: ${refusal}`,
    write: `Error: ${refusal}`,
    search: 'no matches for /SECRET/\n[skipped: 1 files with more than one hard link]',
  });
  expect(await snapshot(outside)).toEqual(before);
  expect(await readFile(path.join(outside, 'f.txt'), 'utf8')).toBe('OUTSIDE SECRET');
});

it('refuses FIFOs at once, in parallel calls, while another run on the same worker finishes', async () => {
  // A blocking open of a FIFO with no writer never returns and holds one of libuv's four file-I/O threads: five
  // such reads used to stall every file operation of the worker, other runs' included.
  const workspace = await makeWorkspace({ 'plain.txt': 'nothing to see' });
  await mkdir(path.join(workspace, 'dir'));
  execFileSync('mkfifo', [path.join(workspace, 'pipe'), path.join(workspace, 'dir', 'pipe')]);
  await symlink('pipe', path.join(workspace, 'link-to-pipe'));
  const reads = Array.from({ length: 5 }, (_, index) => ({ id: `read${index}`, name: 'read_file', arguments: { path: 'pipe' } }));
  const received = scriptByPrompt(bed.server, {
    fifo: [
      openaiReply({
        toolCalls: [
          ...reads,
          { id: 'link', name: 'read_file', arguments: { path: 'link-to-pipe' } },
          { id: 'write', name: 'write_file', arguments: { path: 'pipe', content: 'x' } },
          { id: 'list', name: 'list_directory', arguments: { path: 'pipe' } },
          { id: 'search', name: 'search_files', arguments: { pattern: 'x', path: 'pipe' } },
          { id: 'search-dir', name: 'search_files', arguments: { pattern: 'x', path: 'dir' } },
        ],
      }),
      openaiReply({ content: 'done' }),
    ],
    read: [
      openaiReply({ toolCalls: [{ id: 'read', name: 'read_file', arguments: { path: 'plain.txt' } }] }),
      openaiReply({ content: 'read it' }),
    ],
  });
  const taskQueue = uniqueTaskQueue('fifo');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const run = (prompt: string) =>
    runAgent(bed.environment, taskQueue, {
      prompt,
      model: 'openai:gpt-4o-mini',
      tools: ['read_file', 'write_file', 'list_directory', 'search_files'],
      workspace,
      maxConcurrentTools: 10,
    });
  const [fifo, read] = await worker.runUntil(Promise.all([run('fifo'), run('read')]));

  expect(fifo.result.status).toBe('completed');
  expect(read.result.status).toBe('completed');
  expect(toolResultsOf(received.read[1])).toEqual({ read: 'nothing to see' });
  const notRegular = 'is not a regular file (a FIFO, socket or device)';
  expect(toolResultsOf(received.fifo[1])).toEqual({
    ...Object.fromEntries(reads.map((call) => [call.id, `Error: "pipe" ${notRegular}`])),
    link: `Error: "link-to-pipe" ${notRegular}`,
    write: `Error: "pipe" ${notRegular}`,
    list: 'Error: "pipe" is a file; use read_file',
    search: `Error: "pipe" ${notRegular}`,
    'search-dir': 'no matches for /x/\n[skipped: 1 FIFOs, sockets or devices]',
  });
});
