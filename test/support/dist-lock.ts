import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');

/**
 * Runs `work` while this process holds dist/'s lock (a directory at the repository root), so that one build of
 * dist/ at a time writes it: the example tests' `npm run build:lib` and the packed-tarball test's `npm pack` (whose
 * prepack builds dist/ and the chat page) may run at once in CI, and an install must never copy a half-written file.
 * A lock left by a process that no longer runs (a killed jest run) is taken over.
 */
export async function withDistLock<T>(work: () => Promise<T>): Promise<T> {
  const lock = path.join(root, 'dist.lock');
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(await readFile(path.join(lock, 'pid'), 'utf8').catch(() => ''));
      if (holder > 0 && !isRunning(holder)) await rm(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
