import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { capturedOutput } from './captured-output';
import { typescriptArgs } from './typescript-process';

const projectRoot = path.join(__dirname, '..', '..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI (`cli/main.ts`'s `main`) against the test server, with the prebuilt workflow bundle so its worker
 * starts fast, and resolves with its exit code and what it printed. In this test's process when nothing in the call
 * needs a process of its own: about 1.5 s of Node and tsx start-up saved per call. The same command dispatch, the same
 * environment (cliEnvironment, in place of process.env for the call), stdout and stderr as the process would print
 * them. A process of its own (runCliProcess) when the call needs one; see needsOwnProcess.
 */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}, options: { cwd?: string } = {}): Promise<CliResult> {
  const environment = definedOnly(cliEnvironment(env));
  if (needsOwnProcess(args, environment, options)) return runCliProcess(args, env, options);
  const [{ main }, { forgetCliRegistry }, { Runtime }] = await Promise.all([
    import('../../cli/main'),
    import('../../cli/registry'),
    import('@temporalio/worker'),
  ]);
  // process.env is one: a call while another runs here with another environment gets a process of its own.
  if (borrowed !== undefined && !sameEnvironment(borrowed.environment, environment)) return runCliProcess(args, env, options);
  const output = capturedOutput();
  // The CLI loads its registry once per process; each call here is a command of its own, as a process is.
  if (!borrowed) forgetCliRegistry();
  const release = borrowProcess(environment, Runtime);
  try {
    const code = await main(args, output);
    return { code, stdout: output.stdout, stderr: output.stderr };
  } finally {
    release();
  }
}

/** Runs the CLI in a child process of its own (`node cli/main.ts`), as a user's shell does. */
export function runCliProcess(args: string[], env: NodeJS.ProcessEnv = {}, options: { cwd?: string } = {}): Promise<CliResult> {
  return collect(spawnCli(args, env, { ...options, stdin: 'ignore' }));
}

/** Commands that serve until stopped, or read the terminal: each needs a process to own. */
const serving = new Set(['chat', 'serve', 'mcp', 'codec-server', 'dev', 'worker', 'init']);

/**
 * What only a process of its own shows: a working directory, the embedded dev server (no TEMPORAL_ADDRESS), a
 * definitions module (AGENT_DEFINITIONS: Node's require and the CLI's TypeScript loader, not jest's), tracing
 * (OTEL_*: a process-wide provider, flushed at exit) and start-up timing (AGENT_TIMING, written to the process's
 * stderr), and a terminal (the CLI asks whether stdin and stdout are TTYs).
 */
function needsOwnProcess(args: string[], environment: NodeJS.ProcessEnv, options: { cwd?: string }): boolean {
  return (
    options.cwd !== undefined ||
    serving.has(args[0]) ||
    !environment.TEMPORAL_ADDRESS ||
    environment.AGENT_DEFINITIONS !== undefined ||
    Object.keys(environment).some((name) => name.startsWith('OTEL_') || name === 'AGENT_TIMING') ||
    Boolean(process.stdin.isTTY || process.stdout.isTTY)
  );
}

/** The in-process calls running now, and what they replaced. */
let borrowed: { environment: NodeJS.ProcessEnv; original: NodeJS.ProcessEnv; calls: number; restore: () => void } | undefined;

/** This test process's own environment, also while a CLI call has borrowed process.env. */
function testEnvironment(): NodeJS.ProcessEnv {
  return borrowed?.original ?? process.env;
}

/**
 * Gives the CLI this process for one call: process.env becomes the CLI's environment (with the test run's own TEST_*
 * and JEST_* variables, which the CLI never reads, for the test code that runs meanwhile), and Runtime.install (the
 * CLI's worker installs a quiet runtime, once per process) uses the one this test process already has
 * (test/support/quiet-runtime.ts). Returns what gives it back, when the last call that borrowed it ends.
 */
function borrowProcess(environment: NodeJS.ProcessEnv, Runtime: typeof import('@temporalio/worker').Runtime): () => void {
  if (borrowed) borrowed.calls++;
  else {
    const original = process.env;
    const install = Object.getOwnPropertyDescriptor(Runtime, 'install')!;
    const kept = Object.entries(original).filter(([name]) => /^(TEST_|JEST_)/.test(name) || name === 'TMPDIR');
    process.env = { ...Object.fromEntries(kept), ...environment };
    Object.defineProperty(Runtime, 'install', { ...install, value: () => Runtime.instance() });
    borrowed = {
      environment,
      original,
      calls: 1,
      restore: () => {
        process.env = original;
        Object.defineProperty(Runtime, 'install', install);
      },
    };
  }
  return () => {
    if (!borrowed || --borrowed.calls > 0) return;
    borrowed.restore();
    borrowed = undefined;
  };
}

function definedOnly(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
}

function sameEnvironment(a: NodeJS.ProcessEnv, b: NodeJS.ProcessEnv): boolean {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name) => a[name] === b[name]);
}

/** Starts the CLI without waiting; `stdin: 'pipe'` lets a test type into it (agent chat). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}, options: { cwd?: string; stdin?: 'pipe' | 'ignore' } = {}) {
  const [program, ...programArgs] = cliCommandLine(args);
  return spawn(program, programArgs, {
    cwd: options.cwd ?? projectRoot,
    env: cliEnvironment(env),
    stdio: [options.stdin ?? 'pipe', 'pipe', 'pipe'],
  });
}

/** The command line that runs the CLI with `args` (for a terminal of its own: test/support/terminal.ts). */
export function cliCommandLine(args: string[]): string[] {
  return [process.execPath, ...typescriptArgs('cli/main.ts'), ...args];
}

/** The CLI's environment against the test server, with `env` on top. */
export function cliEnvironment(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const test = testEnvironment();
  return {
    PATH: test.PATH,
    HOME: test.HOME,
    // Test workspaces are temporary directories: the worker must serve workspaces there.
    AGENT_WORKSPACE_ROOT: os.tmpdir(),
    TEMPORAL_ADDRESS: test.TEST_TEMPORAL_ADDRESS,
    AGENT_WORKFLOW_BUNDLE: test.TEST_WORKFLOW_BUNDLE,
    AGENT_TRANSCRIPT_DIR: test.AGENT_TRANSCRIPT_DIR,
    AGENT_PAYLOAD_DIR: test.AGENT_PAYLOAD_DIR,
    ...env,
  };
}

export function collect(child: ReturnType<typeof spawn>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The last line of stdout parsed as JSON (the --json contract). */
export function lastJsonLine(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}
