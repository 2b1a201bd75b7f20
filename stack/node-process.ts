import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { typescriptArgs } from '../test/support/typescript-process';

export interface NodeProcess {
  name: string;
  pid: number;
  logFile: string;
  /** SIGTERM (the worker drains its in-flight work first), SIGKILL after the grace period; waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash or an OOM kill ends it; waits for the exit. */
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * One of the project's programs (worker/main.ts, cli/main.ts codec-server) in a process of its own, as the
 * compose file runs the image (`node --conditions=source --import tsx …`), its output appended to `logFile`.
 * Resolves once `ready` finds what the program prints when it is up in that log.
 */
export async function startNodeProcess(options: {
  name: string;
  script: string;
  args?: string[];
  env: Record<string, string>;
  logFile: string;
  ready: RegExp;
  graceMs?: number;
}): Promise<NodeProcess> {
  // The log may hold an earlier run's lines (a stack restarted in the same directory): readiness is read after them.
  const logStart = await stat(options.logFile).then(
    (file) => file.size,
    () => 0,
  );
  const log = openSync(options.logFile, 'a');
  const child = spawn(process.execPath, [...typescriptArgs(options.script), ...(options.args ?? [])], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...options.env },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve((code = exitCode))));
  const signal = async (name: NodeJS.Signals, graceMs: number) => {
    if (code !== undefined) return;
    child.kill(name);
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(killer);
  };
  const handle: NodeProcess = {
    name: options.name,
    pid: child.pid!,
    logFile: options.logFile,
    stop: () => signal('SIGTERM', options.graceMs ?? 30_000),
    kill: () => signal('SIGKILL', 0),
    exited,
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    const output = (await readFile(options.logFile)).subarray(logStart).toString();
    if (options.ready.test(output)) return handle;
    if (code !== undefined)
      throw new Error(`${options.name} exited (${code}) before it was ready: ${output.trim().slice(-2000)}`);
    if (Date.now() > deadline) {
      await handle.kill();
      throw new Error(`${options.name} was not ready within 90 s: ${output.trim().slice(-2000)}`);
    }
    await sleep(200);
  }
}
