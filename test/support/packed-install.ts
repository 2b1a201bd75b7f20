import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { collect, type CliResult } from './cli';
import { withDistLock } from './dist-lock';

const root = path.join(__dirname, '..', '..');

/**
 * The environment a person's shell has: without jest's NODE_ENV=test, the tests' prebuilt workflow bundle (the
 * installed package bundles its own), and the INIT_CWD of the `npm test` that started jest (npm would pass it on, and
 * the CLI reads paths from it).
 */
export function shellEnvironment(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { NODE_ENV: _jest, AGENT_WORKFLOW_BUNDLE: _bundle, INIT_CWD: _npm, ...outside } = process.env;
  return { ...outside, ...env };
}

/** Runs a command in `cwd` with a shell's environment and `env` on top; resolves with what it printed. */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return collect(spawn(command, args, { cwd, env: shellEnvironment(env), stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** `npm` of a given major version (fetched once by npx into its cache), as a user of that npm would run it. */
export function npmOf(major: number) {
  return (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) => run('npx', ['-y', `npm@${major}`, ...args], cwd, env);
}

/** Throws with what the command printed unless it exited 0. */
export function succeeded(what: string, result: CliResult): CliResult {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** The directories made here: a pack and an install with its projects take about a gigabyte of disk. */
const made: string[] = [];

/** Removes every directory packThisCheckout and emptyDirectory made. */
export async function removeMadeDirectories(): Promise<void> {
  await Promise.all(made.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
}

/**
 * Packs this checkout as `npm publish` would (prepack builds dist/ and the chat page) into a new directory, and
 * returns the tarball's path: what a user installs from the registry. Under dist/'s lock (./dist-lock.ts): in CI the
 * example tests build dist/ at the same time.
 */
export async function packThisCheckout(): Promise<string> {
  const destination = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-pack-'));
  made.push(destination);
  succeeded('npm pack', await withDistLock(() => run('npm', ['pack', '--pack-destination', destination], root)));
  const [tarball] = (await readdir(destination)).filter((name) => name.endsWith('.tgz'));
  return path.join(destination, tarball);
}

/** A new empty directory, as a user makes one for an app. */
export async function emptyDirectory(name: string): Promise<string> {
  const parent = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-app-'));
  made.push(parent);
  const directory = path.join(parent, name);
  await mkdir(directory);
  return directory;
}
