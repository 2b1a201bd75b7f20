import { execFileSync } from 'node:child_process';
import { link, mkdir, mkdtemp, readFile, readdir, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { directoryAccess, pathDirectoryAccess, type DirectoryAccess } from '../../tools/directory-access';
import { ToolInputError } from '../../core/errors';
import { OpenedWorkspace, type OpenedInWorkspace, type OpenPurpose } from '../../tools/open-in-workspace';

let scratch: string;
let workspace: string;
let outside: string;

beforeAll(async () => {
  scratch = await realpath(await mkdtemp(path.join(os.tmpdir(), 'workspace-open-')));
  workspace = path.join(scratch, 'workspace');
  outside = path.join(scratch, 'outside');
  await mkdir(path.join(workspace, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(workspace, 'src', 'main.ts'), 'inside');
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await symlink('src/main.ts', path.join(workspace, 'main-link'));
  await symlink('src', path.join(workspace, 'src-link'));
  await symlink(path.join(workspace, 'src'), path.join(workspace, 'src-absolute-link'));
  await symlink('.', path.join(workspace, 'self'));
  await symlink('loop-b', path.join(workspace, 'loop-a'));
  await symlink('loop-a', path.join(workspace, 'loop-b'));
  await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'secret-link'));
  await symlink('../outside', path.join(workspace, 'outside-dir'));
  await symlink('../outside/planted.txt', path.join(workspace, 'dangling-out'));
  await link(path.join(outside, 'secret.txt'), path.join(workspace, 'hard.txt'));
  execFileSync('mkfifo', [path.join(workspace, 'pipe')]);
  await symlink(workspace, path.join(scratch, 'workspace-link'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

async function withWorkspace<T>(
  access: DirectoryAccess,
  use: (opened: OpenedWorkspace) => Promise<T>,
  root = workspace,
): Promise<T> {
  const opened = await OpenedWorkspace.open(root, access);
  try {
    return await use(opened);
  } finally {
    await opened.close();
  }
}

/** What opening `requested` gives: the text of a file, the names in a directory, or the refusal's message. */
async function outcome(access: DirectoryAccess, requested: string, purpose: OpenPurpose, root = workspace): Promise<string> {
  return withWorkspace(
    access,
    async (opened) => {
      let entry: OpenedInWorkspace;
      try {
        entry = await opened.open(requested, purpose);
      } catch (error) {
        if (error instanceof ToolInputError) return `refused: ${error.message}`;
        throw error;
      }
      try {
        if (purpose === 'write') return `opened for writing ${entry.relative}`;
        if (entry.info.isDirectory()) return `${entry.relative}: ${(await readdir(entry.pathOfHandle)).sort().join(' ')}`;
        return `${entry.relative}: ${await entry.handle.readFile('utf8')}`;
      } finally {
        await entry.handle.close();
      }
    },
    root,
  );
}

describe.each([
  ['through /proc/self/fd (race-free)', () => directoryAccess()],
  ['by path (the fallback where /proc is missing)', async () => pathDirectoryAccess],
])('openInWorkspace %s', (kind, accessOf) => {
  let access: DirectoryAccess;
  beforeAll(async () => {
    access = await accessOf();
  });

  it('opens files and directories inside, following symlinks that stay inside', async () => {
    expect(await outcome(access, 'src/main.ts', 'file')).toBe('src/main.ts: inside');
    expect(await outcome(access, 'main-link', 'file')).toBe('src/main.ts: inside');
    expect(await outcome(access, 'src-link/main.ts', 'file')).toBe('src/main.ts: inside');
    expect(await outcome(access, 'src-absolute-link/main.ts', 'file')).toBe('src/main.ts: inside');
    expect(await outcome(access, 'self/self/src/main.ts', 'file')).toBe('src/main.ts: inside');
    expect(await outcome(access, 'src-link', 'directory')).toBe('src: main.ts');
    expect(await outcome(access, path.join(workspace, 'src', 'main.ts'), 'file')).toBe('src/main.ts: inside');
  });

  it('works when the workspace is given through a symlink, absolute paths under that name included', async () => {
    const linked = path.join(scratch, 'workspace-link');
    expect(await outcome(access, path.join(linked, 'src', 'main.ts'), 'file', linked)).toBe('src/main.ts: inside');
    expect(await outcome(access, '../outside/secret.txt', 'file', linked)).toBe(
      'refused: path "../outside/secret.txt" is outside the workspace',
    );
  });

  it('refuses symlinks that lead outside, as the last component or on the way, dangling ones too', async () => {
    expect(await outcome(access, 'secret-link', 'file')).toBe(
      'refused: path "secret-link" resolves through a symlink to outside the workspace',
    );
    expect(await outcome(access, 'outside-dir/secret.txt', 'file')).toBe(
      'refused: path "outside-dir/secret.txt" resolves through a symlink to outside the workspace',
    );
    expect(await outcome(access, 'outside-dir', 'directory')).toBe(
      'refused: path "outside-dir" resolves through a symlink to outside the workspace',
    );
    expect(await outcome(access, 'dangling-out', 'write')).toBe(
      'refused: path "dangling-out" resolves through a symlink to outside the workspace',
    );
    expect(await outcome(access, 'outside-dir/new/file.txt', 'write')).toBe(
      'refused: path "outside-dir/new/file.txt" resolves through a symlink to outside the workspace',
    );
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  it('refuses paths that leave lexically, and NUL bytes', async () => {
    expect(await outcome(access, '../outside/secret.txt', 'file')).toBe(
      'refused: path "../outside/secret.txt" is outside the workspace',
    );
    expect(await outcome(access, path.join(outside, 'secret.txt'), 'file')).toBe(
      `refused: path "${path.join(outside, 'secret.txt')}" is outside the workspace`,
    );
    expect(await outcome(access, 'src/main.ts\0', 'file')).toBe('refused: path must not contain NUL bytes');
  });

  it('refuses a file with more than one hard link, for reading and writing, and leaves it as it was', async () => {
    const refusal =
      'refused: "hard.txt" has 2 hard links; files with more than one are refused (one may be outside the workspace)';
    expect(await outcome(access, 'hard.txt', 'file')).toBe(refusal);
    expect(await outcome(access, 'hard.txt', 'write')).toBe(refusal);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
  });

  it('refuses a FIFO for every purpose without waiting for a writer or a reader', async () => {
    const refusal = 'refused: "pipe" is not a regular file (a FIFO, socket or device)';
    expect(await outcome(access, 'pipe', 'file')).toBe(refusal);
    expect(await outcome(access, 'pipe', 'entry')).toBe(refusal);
    expect(await outcome(access, 'pipe', 'write')).toBe(refusal);
    expect(await outcome(access, 'pipe', 'directory')).toBe('refused: "pipe" is a file; use read_file');
  });

  it('creates missing parents for a write, and reports missing paths and wrong kinds to the model', async () => {
    expect(await outcome(access, `made-${kind.length}/by/write.txt`, 'write')).toBe(
      `opened for writing made-${kind.length}/by/write.txt`,
    );
    expect(await outcome(access, 'missing.txt', 'file')).toBe('refused: file "missing.txt" does not exist');
    expect(await outcome(access, 'missing', 'directory')).toBe('refused: directory "missing" does not exist');
    expect(await outcome(access, 'src', 'file')).toBe('refused: "src" is a directory; use list_directory');
    expect(await outcome(access, 'src', 'write')).toBe('refused: "src" is a directory');
    expect(await outcome(access, '.', 'write')).toBe('refused: "." is a directory');
    expect(await outcome(access, 'src/main.ts/child', 'file')).toBe(
      'refused: path "src/main.ts/child" goes through a file as if it were a directory',
    );
    expect(await outcome(access, 'loop-a', 'file')).toBe('refused: path "loop-a" has too many levels of symbolic links');
  });
});

describe('openInWorkspace through /proc/self/fd', () => {
  it('checks what it opened: a directory moved out of the workspace after it was opened yields nothing from outside', async () => {
    await mkdir(path.join(workspace, 'moving'));
    await writeFile(path.join(workspace, 'moving', 'f.txt'), 'was inside');
    await withWorkspace(await directoryAccess(), async (opened) => {
      const directory = await opened.open('moving', 'directory');
      try {
        await rename(path.join(workspace, 'moving'), path.join(outside, 'moved'));
        await expect(opened.openChild(directory, 'f.txt')).rejects.toThrow('path "moving/f.txt" is outside the workspace');
      } finally {
        await directory.handle.close();
        await rm(path.join(outside, 'moved'), { recursive: true });
      }
    });
  });

  it('lists the directory it opened even if its name is swapped for a symlink to outside afterwards', async () => {
    await mkdir(path.join(workspace, 'swapped'));
    await writeFile(path.join(workspace, 'swapped', 'own.txt'), '');
    await withWorkspace(await directoryAccess(), async (opened) => {
      const directory = await opened.open('swapped', 'directory');
      try {
        await rename(path.join(workspace, 'swapped'), path.join(workspace, 'swapped-away'));
        await symlink(outside, path.join(workspace, 'swapped'));
        expect(await readdir(directory.pathOfHandle)).toEqual(['own.txt']);
      } finally {
        await directory.handle.close();
      }
    });
  });
});
