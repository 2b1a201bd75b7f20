import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { collect } from './cli';
import { withDistLock } from './dist-lock';

const root = path.join(__dirname, '..', '..');

/** The environment a person's shell has: without jest's NODE_ENV=test, which would make Vite build React's development copy. */
function shellEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_ENV: _jest, ...outside } = process.env;
  return { ...outside, ...env };
}

export interface StartedScript {
  /** What it has printed so far, stdout and stderr together. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Builds dist/ from this checkout (`npm run build:lib`: `tsc -b`, which rebuilds only what changed, so the second
 * example of a run waits a second, not twenty), under dist/'s lock (./dist-lock.ts).
 */
function buildLibrary(): Promise<void> {
  return withDistLock(async () => {
    const build = await collect(spawn('npm', ['run', '-s', 'build:lib'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }));
    if (build.code !== 0) throw new Error(`npm run build:lib failed:\n${build.stdout}${build.stderr}`);
  });
}

/**
 * An app under examples/ that uses durable-agent as a library, the way a user's app does: it installs the library
 * as a packed copy (install-links, as from a registry) and builds and runs with its own scripts.
 */
export function exampleApp(name: string) {
  const dir = path.join(root, 'examples', name);
  const npm = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    collect(spawn('npm', args, { cwd: dir, env: shellEnvironment(env), stdio: ['ignore', 'pipe', 'pipe'] }));
  return {
    dir,
    npm,
    /**
     * Installs the app afresh against this checkout. install-links copies dist/ but does not run the library's
     * prepack, so dist/ is built from this checkout first: the app tests this code, and a fresh clone has one.
     */
    async install(): Promise<void> {
      await buildLibrary();
      await rm(path.join(dir, 'node_modules', 'durable-agent'), { recursive: true, force: true });
      const install = await npm(['install', '--no-audit', '--no-fund']);
      if (install.code !== 0) throw new Error(`npm install in examples/${name} failed:\n${install.stderr}`);
    },
    /**
     * Starts one of the app's long-running scripts (a worker, a server) in a process group of its own, so that stop()
     * ends npm and everything it started.
     */
    start(script: string, env: NodeJS.ProcessEnv = {}): StartedScript {
      const child = spawn('npm', ['run', '-s', script], {
        cwd: dir,
        env: shellEnvironment(env),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      return {
        output: () => output,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
          await exited;
        },
      };
    },
    /** The app's own type check: exit code and what it printed (tsc reports type errors on stdout), npm's warnings left out. */
    async typeCheck(): Promise<{ code: number | null; output: string }> {
      const run = await npm(['run', '-s', 'build']);
      return { code: run.code, output: `${run.stdout}${run.stderr.replace(/npm warn[^\n]*\n/g, '')}` };
    },
  };
}
