import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { typescriptArgs } from './typescript-process';

const projectRoot = path.join(__dirname, '..', '..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI (`cli/main.ts`) in a child process against the test
 * server, with the prebuilt workflow bundle so its in-process worker starts fast.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, options: { cwd?: string } = {}): Promise<CliResult> {
  return collect(spawnCli(args, env, { ...options, stdin: 'ignore' }));
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
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // Test workspaces are temporary directories: the worker must serve workspaces there.
    AGENT_WORKSPACE_ROOT: os.tmpdir(),
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    AGENT_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE,
    AGENT_TRANSCRIPT_DIR: process.env.AGENT_TRANSCRIPT_DIR,
    AGENT_PAYLOAD_DIR: process.env.AGENT_PAYLOAD_DIR,
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
