import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ToolInputError } from '../../core/errors';
import { resolveInWorkspace } from '../../tools/workspace';

let scratch: string;
let workspace: string;
let outside: string;

beforeAll(async () => {
  scratch = await realpath(await mkdtemp(path.join(os.tmpdir(), 'workspace-test-')));
  workspace = path.join(scratch, 'workspace');
  outside = path.join(scratch, 'outside');
  await mkdir(path.join(workspace, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(workspace, 'src', 'main.ts'), 'inside');
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'secret-link'));
  await symlink(outside, path.join(workspace, 'outside-dir'));
  await symlink(path.join(workspace, 'src', 'main.ts'), path.join(workspace, 'main-link'));
  await symlink(workspace, path.join(scratch, 'workspace-link'));
  await symlink(path.join(outside, 'new.txt'), path.join(workspace, 'dangling-out'));
  await symlink(path.join(workspace, 'src', 'later.txt'), path.join(workspace, 'dangling-in'));
  await writeFile(path.join(workspace, '..notes'), 'a name that starts with two dots');
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

async function refusal(requested: string, root = workspace): Promise<string> {
  const error = await resolveInWorkspace(root, requested).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ToolInputError)) throw new Error(`expected a ToolInputError for "${requested}", got ${String(error)}`);
  return error.message;
}

describe('resolveInWorkspace', () => {
  it('resolves a relative path inside the workspace to an absolute path', async () => {
    expect(await resolveInWorkspace(workspace, 'src/main.ts')).toBe(path.join(workspace, 'src', 'main.ts'));
  });

  it('resolves "." to the workspace itself', async () => {
    expect(await resolveInWorkspace(workspace, '.')).toBe(workspace);
  });

  it('allows a path that does not exist yet', async () => {
    expect(await resolveInWorkspace(workspace, 'new/dir/file.txt')).toBe(path.join(workspace, 'new', 'dir', 'file.txt'));
  });

  it('allows ".." segments that stay inside', async () => {
    expect(await resolveInWorkspace(workspace, 'src/../src/main.ts')).toBe(path.join(workspace, 'src', 'main.ts'));
  });

  it('refuses ".." escapes', async () => {
    expect(await refusal('../outside/secret.txt')).toBe('path "../outside/secret.txt" is outside the workspace');
    expect(await refusal('src/../../outside')).toBe('path "src/../../outside" is outside the workspace');
  });

  it('refuses an absolute path outside', async () => {
    const secret = path.join(outside, 'secret.txt');
    expect(await refusal(secret)).toBe(`path "${secret}" is outside the workspace`);
  });

  it('allows an absolute path inside', async () => {
    const file = path.join(workspace, 'src', 'main.ts');
    expect(await resolveInWorkspace(workspace, file)).toBe(file);
  });

  it('refuses a path containing a NUL byte', async () => {
    expect(await refusal('src/main.ts\0.txt')).toBe('path must not contain NUL bytes');
  });

  it('refuses a file symlink that points outside', async () => {
    expect(await refusal('secret-link')).toBe('path "secret-link" resolves through a symlink to outside the workspace');
  });

  it('refuses a directory symlink that points outside, and files under it', async () => {
    expect(await refusal('outside-dir')).toBe('path "outside-dir" resolves through a symlink to outside the workspace');
    expect(await refusal('outside-dir/secret.txt')).toBe(
      'path "outside-dir/secret.txt" resolves through a symlink to outside the workspace',
    );
  });

  it('refuses a not-yet-existing file under a directory symlink that points outside', async () => {
    expect(await refusal('outside-dir/new/file.txt')).toBe(
      'path "outside-dir/new/file.txt" resolves through a symlink to outside the workspace',
    );
  });

  it('allows a symlink that points inside', async () => {
    expect(await resolveInWorkspace(workspace, 'main-link')).toBe(path.join(workspace, 'main-link'));
  });

  it('works when the workspace itself is given through a symlink', async () => {
    const linked = path.join(scratch, 'workspace-link');
    expect(await resolveInWorkspace(linked, 'src/main.ts')).toBe(path.join(workspace, 'src', 'main.ts'));
    expect(await refusal('../outside/secret.txt', linked)).toBe('path "../outside/secret.txt" is outside the workspace');
  });

  it('refuses a dangling symlink whose target would be outside', async () => {
    expect(await refusal('dangling-out')).toBe('path "dangling-out" resolves through a symlink to outside the workspace');
  });

  it('allows a dangling symlink whose target would be inside', async () => {
    expect(await resolveInWorkspace(workspace, 'dangling-in')).toBe(path.join(workspace, 'dangling-in'));
  });

  it('allows a file whose name starts with two dots', async () => {
    expect(await resolveInWorkspace(workspace, '..notes')).toBe(path.join(workspace, '..notes'));
  });

  it('refuses a path that treats a file as a directory, as a message for the model', async () => {
    expect(await refusal('src/main.ts/child')).toBe('path "src/main.ts/child" goes through a file as if it were a directory');
  });

  it('allows an absolute path under a workspace given through a symlink', async () => {
    const linked = path.join(scratch, 'workspace-link');
    expect(await resolveInWorkspace(linked, path.join(linked, 'src', 'main.ts'))).toBe(path.join(workspace, 'src', 'main.ts'));
  });
});
