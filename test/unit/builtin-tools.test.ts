import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { maxWriteFileBytes } from '../../core/limits';
import type { Tool } from '../../tools';
import { listDirectory } from '../../tools/list-directory';
import { readFile as readFileTool } from '../../tools/read-file';
import { searchFiles } from '../../tools/search-files';
import { writeFile as writeFileTool } from '../../tools/write-file';
import { toolInputRefusal } from '../support/tool-input-refusal';

const created: string[] = [];
afterAll(() => Promise.all(created.map((directory) => rm(directory, { recursive: true, force: true }))));

/** A fresh temporary directory holding the given files; nested paths get their parent directories. */
async function directoryWith(files: Record<string, string> = {}): Promise<string> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'builtin-tools-'));
  created.push(directory);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(directory, name)), { recursive: true });
    await writeFile(path.join(directory, name), content);
  }
  return directory;
}

function call<Input>(tool: Tool<Input>, input: Input, workspace: string): Promise<string> {
  return tool.handler(input, { workspace, signal: new AbortController().signal }) as Promise<string>;
}

describe('read_file', () => {
  it('returns the contents of a file', async () => {
    const workspace = await directoryWith({ 'notes/todo.txt': 'buy milk\n' });
    expect(await call(readFileTool, { path: 'notes/todo.txt' }, workspace)).toBe('buy milk\n');
  });

  it('refuses a missing file', async () => {
    const workspace = await directoryWith();
    expect(await toolInputRefusal(call(readFileTool, { path: 'missing.txt' }, workspace))).toBe(
      'file "missing.txt" does not exist',
    );
  });

  it('refuses a directory', async () => {
    const workspace = await directoryWith({ 'src/a.ts': '' });
    expect(await toolInputRefusal(call(readFileTool, { path: 'src' }, workspace))).toBe(
      '"src" is a directory; use list_directory',
    );
  });
});

describe('write_file', () => {
  it('creates parent directories and reports the bytes written', async () => {
    const workspace = await directoryWith();
    expect(await call(writeFileTool, { path: 'deep/er/file.txt', content: 'héllo' }, workspace)).toBe(
      'wrote 6 bytes to deep/er/file.txt',
    );
    expect(await readFile(path.join(workspace, 'deep', 'er', 'file.txt'), 'utf8')).toBe('héllo');
  });

  it('refuses content over maxWriteFileBytes and writes nothing', async () => {
    const workspace = await directoryWith();
    const content = 'x'.repeat(maxWriteFileBytes + 1);
    expect(await toolInputRefusal(call(writeFileTool, { path: 'big.txt', content }, workspace))).toBe(
      `content is ${maxWriteFileBytes + 1} bytes; write_file accepts at most ${maxWriteFileBytes}`,
    );
    await expect(stat(path.join(workspace, 'big.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a path outside the workspace and writes nothing', async () => {
    const parent = await directoryWith();
    const workspace = path.join(parent, 'workspace');
    await mkdir(workspace);
    expect(await toolInputRefusal(call(writeFileTool, { path: '../escaped.txt', content: 'x' }, workspace))).toBe(
      'path "../escaped.txt" is outside the workspace',
    );
    await expect(stat(path.join(parent, 'escaped.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses to write through a dangling symlink that points outside, and writes nothing', async () => {
    const parent = await directoryWith();
    const workspace = path.join(parent, 'workspace');
    await mkdir(workspace);
    await symlink(path.join(parent, 'new.txt'), path.join(workspace, 'dangling'));
    expect(await toolInputRefusal(call(writeFileTool, { path: 'dangling', content: 'escaped' }, workspace))).toBe(
      'path "dangling" resolves through a symlink to outside the workspace',
    );
    await expect(stat(path.join(parent, 'new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses to overwrite a directory', async () => {
    const workspace = await directoryWith({ 'src/a.ts': '' });
    expect(await toolInputRefusal(call(writeFileTool, { path: 'src', content: 'x' }, workspace))).toBe('"src" is a directory');
  });
});

describe('list_directory', () => {
  it('lists entries sorted, marking directories with "/"', async () => {
    const workspace = await directoryWith({ 'b.txt': '', 'a/inner.txt': '', 'c/inner.txt': '', 'aa.txt': '' });
    expect(await call(listDirectory, { path: '.' }, workspace)).toBe('a/\naa.txt\nb.txt\nc/');
  });

  it('says so for an empty directory', async () => {
    const workspace = await directoryWith();
    await mkdir(path.join(workspace, 'empty'));
    expect(await call(listDirectory, { path: 'empty' }, workspace)).toBe('(empty directory)');
  });

  it('refuses a missing directory and a file', async () => {
    const workspace = await directoryWith({ 'a.txt': '' });
    expect(await toolInputRefusal(call(listDirectory, { path: 'nope' }, workspace))).toBe('directory "nope" does not exist');
    expect(await toolInputRefusal(call(listDirectory, { path: 'a.txt' }, workspace))).toBe('"a.txt" is a file; use read_file');
  });
});

describe('search_files', () => {
  it('returns "file:line: text" for each match', async () => {
    const workspace = await directoryWith({ 'a.txt': 'one\nTODO two\nthree', 'src/b.ts': 'const x = 1; // TODO\n' });
    expect(await call(searchFiles, { pattern: 'TODO' }, workspace)).toBe('a.txt:2: TODO two\nsrc/b.ts:1: const x = 1; // TODO');
  });

  it('searches only under the given path', async () => {
    const workspace = await directoryWith({ 'a.txt': 'TODO', 'src/b.ts': 'TODO' });
    expect(await call(searchFiles, { pattern: 'TODO', path: 'src' }, workspace)).toBe('src/b.ts:1: TODO');
  });

  it('skips node_modules and .git', async () => {
    const workspace = await directoryWith({ 'node_modules/lib/index.js': 'needle', '.git/config': 'needle', 'app.js': 'needle' });
    expect(await call(searchFiles, { pattern: 'needle' }, workspace)).toBe('app.js:1: needle');
  });

  it('says so when nothing matches', async () => {
    const workspace = await directoryWith({ 'a.txt': 'hay' });
    expect(await call(searchFiles, { pattern: 'needle' }, workspace)).toBe('no matches for /needle/');
  });

  it('refuses an invalid regular expression, naming the RE2 syntax it expects', async () => {
    const workspace = await directoryWith({ 'a.txt': 'hay' });
    expect(await toolInputRefusal(call(searchFiles, { pattern: '(' }, workspace))).toBe(
      'invalid regular expression (RE2 syntax): missing closing ): `(`',
    );
  });

  it('stops after 200 matches with a marker', async () => {
    const lines = Array.from({ length: 250 }, (_, index) => `match ${index + 1}`);
    const workspace = await directoryWith({ 'many.txt': lines.join('\n') });
    const output = (await call(searchFiles, { pattern: 'match' }, workspace)).split('\n');
    expect(output).toHaveLength(201);
    expect(output[0]).toBe('many.txt:1: match 1');
    expect(output[199]).toBe('many.txt:200: match 200');
    expect(output[200]).toBe('[stopped after 200 matches]');
  });

  it('does not read through a symlink that points outside the workspace', async () => {
    const outside = await directoryWith({ 'secret.txt': 'needle secret' });
    const workspace = await directoryWith({ 'own.txt': 'needle own' });
    await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'leak.txt'));
    // The search says what it skipped, so the model knows the link exists but was not followed.
    expect(await call(searchFiles, { pattern: 'needle' }, workspace)).toBe(
      'own.txt:1: needle own\n[skipped: 1 symlinks pointing outside the workspace]',
    );
  });
});
