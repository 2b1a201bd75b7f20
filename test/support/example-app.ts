import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { collect } from './cli';

const root = path.join(__dirname, '..', '..');

/**
 * An app under examples/ that uses durable-agent as a library, the way a user's app does: it installs the library
 * as a packed copy (install-links, as from a registry) and builds and runs with its own scripts.
 */
export function exampleApp(name: string) {
  const dir = path.join(root, 'examples', name);
  const npm = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    collect(spawn('npm', args, { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  return {
    dir,
    npm,
    /**
     * Installs the app afresh against this checkout. install-links copies dist/ but does not run the library's
     * prepack, so dist/ is built from this checkout first: the app tests this code, and a fresh clone has one.
     */
    async install(): Promise<void> {
      const build = await collect(spawn('npm', ['run', '-s', 'build:lib'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }));
      if (build.code !== 0) throw new Error(`npm run build:lib failed:\n${build.stdout}${build.stderr}`);
      await rm(path.join(dir, 'node_modules', 'durable-agent'), { recursive: true, force: true });
      const install = await npm(['install', '--no-audit', '--no-fund']);
      if (install.code !== 0) throw new Error(`npm install in examples/${name} failed:\n${install.stderr}`);
    },
    /** The app's own type check: exit code and what it printed (tsc reports type errors on stdout), npm's warnings left out. */
    async typeCheck(): Promise<{ code: number | null; output: string }> {
      const run = await npm(['run', '-s', 'build']);
      return { code: run.code, output: `${run.stdout}${run.stderr.replace(/npm warn[^\n]*\n/g, '')}` };
    },
  };
}
