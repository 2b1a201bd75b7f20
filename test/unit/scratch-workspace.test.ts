import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createScratchActivities } from '../../evals/scratch/scratch-activities';
import { AgentPlugin } from '../../worker/agent-plugin';

// Scratch copies of a workspace for an eval's runs: bounded, idempotent by key, nothing but files and directories.

async function bed(files: Record<string, string>, limits?: { maxBytes: number; maxEntries: number }) {
  const base = await mkdtemp(path.join(os.tmpdir(), 'scratch-unit-'));
  const workspaceRoot = path.join(base, 'root');
  const workspace = path.join(workspaceRoot, 'project');
  const scratchRoot = path.join(base, 'scratch');
  await mkdir(workspace, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(workspace, name)), { recursive: true });
    await writeFile(path.join(workspace, name), content);
  }
  const activities = createScratchActivities({ workspaceRoot, scratchRoot, limits });
  const environment = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const make = (key: string, from = workspace) =>
    environment.run(activities.makeScratchWorkspace, { workspace: from, key }) as Promise<{ path: string }>;
  return { base, workspace, scratchRoot, make };
}

it('is registered on every worker', () => {
  // The worker assembles the evals feature (worker/features.ts): its activities come with the plugin.
  const { activities } = new AgentPlugin({ env: {}, workspaceRoot: os.tmpdir(), tracing: false }).configureWorker({
    taskQueue: 'scratch-unit',
  });
  expect(Object.keys(activities ?? {})).toEqual(
    expect.arrayContaining(['makeScratchWorkspace', 'removeScratchWorkspace', 'gradeOutcome']),
  );
});

it('copies files and directories, leaves out FIFOs, and replaces a crashed attempt’s half copy', async () => {
  const { workspace, scratchRoot, make } = await bed({ 'a.txt': 'a', 'deep/er/b.txt': 'b' });
  execFileSync('mkfifo', [path.join(workspace, 'pipe')]);
  // A crashed attempt of this key left a half copy behind: the next attempt removes it and copies whole.
  await mkdir(scratchRoot, { recursive: true });
  const name = `scratch-${createHash('sha256').update('k').digest('hex').slice(0, 32)}`;
  await mkdir(path.join(scratchRoot, `${name}.partial-deadbeef`));
  await writeFile(path.join(scratchRoot, `${name}.partial-deadbeef`, 'half.txt'), 'half');
  const { path: copy } = await make('k');
  expect(path.basename(copy)).toBe(name);
  expect(await readdir(scratchRoot)).toEqual([name]);
  expect((await readdir(copy)).sort()).toEqual(['a.txt', 'deep']);
  expect(await readFile(path.join(copy, 'deep', 'er', 'b.txt'), 'utf8')).toBe('b');
  // A retried attempt finds the finished copy: what the run changed there stays, nothing is copied again.
  await writeFile(path.join(copy, 'changed-by-run.txt'), 'kept');
  expect((await make('k')).path).toBe(copy);
  expect((await readdir(copy)).sort()).toEqual(['a.txt', 'changed-by-run.txt', 'deep']);
});

it('refuses a workspace past the limits, or outside the workspace root, with a clear error and no copy left', async () => {
  const { base, scratchRoot, make } = await bed(
    { 'a.txt': 'x'.repeat(600), 'b.txt': 'y'.repeat(600) },
    { maxBytes: 1000, maxEntries: 100 },
  );
  await expect(make('too-big')).rejects.toThrow(/holds more than 1000 bytes of files: a scratch copy holds at most 100 files/);
  expect(await readdir(scratchRoot)).toEqual([]);
  await expect(make('outside', base)).rejects.toThrow(/outside this worker's workspace root/);
});
