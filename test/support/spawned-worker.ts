import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { typescriptArgs } from './typescript-process';
import { waitFor } from './wait-for';
import { workerReadyLine } from './worker-process';

const script = path.join(__dirname, 'worker-process.ts');
const readyTimeoutMs = 60_000;

export interface SpawnedWorkerOptions {
  address: string;
  taskQueue: string;
  /** The worker identity Temporal records on the activities this worker starts. */
  identity: string;
  /** Provider variables, SLOW_STEP_LOG and the like. */
  env?: NodeJS.ProcessEnv;
}

export interface SpawnedWorker {
  identity: string;
  pid: number;
  /** When it printed the ready line: polling from then on. */
  readyAt: number;
  /** Sends SIGKILL and waits for the process to be gone; returns the time the signal was sent. */
  kill(): Promise<number>;
  /** Whatever the process wrote to stderr, for failure messages. */
  stderr(): string;
}

/**
 * Starts test/support/worker-process.ts in its own process and resolves once it
 * is polling. Every worker started here stays in `liveWorkers` until it is killed,
 * so an afterEach can kill whatever a failed test left behind.
 */
export async function spawnWorker(options: SpawnedWorkerOptions): Promise<SpawnedWorker> {
  // Without the `source` condition: the worker imports this checkout by path, and under it a package that ships its
  // TypeScript sources (eventsource-parser, which @ai-sdk/google loads) would resolve to .ts files Node cannot load.
  const args = typescriptArgs(script).filter((arg) => arg !== '--conditions=source');
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      // Test workspaces are temporary directories: the worker must serve workspaces there.
      AGENT_WORKSPACE_ROOT: os.tmpdir(),
      TEMPORAL_ADDRESS: options.address,
      AGENT_TASK_QUEUE: options.taskQueue,
      AGENT_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE,
      WORKER_IDENTITY: options.identity,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // tsx runs the script in a child process of its own and cannot relay SIGKILL,
    // so the worker gets a process group and kill() signals the whole group.
    detached: true,
  });
  liveWorkers.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8000)));
  const worker: SpawnedWorker = {
    identity: options.identity,
    pid: child.pid!,
    readyAt: Number.NaN,
    async kill() {
      const sentAt = Date.now();
      await killGroup(child);
      return sentAt;
    },
    stderr: () => stderr,
  };
  try {
    await ready(child, () => stderr);
    worker.readyAt = Date.now();
  } catch (error) {
    await worker.kill();
    throw error;
  }
  return worker;
}

const liveWorkers = new Set<ChildProcess>();

/** SIGKILLs every spawned worker still running and waits until they are gone. */
export async function killSpawnedWorkers(): Promise<void> {
  await Promise.all([...liveWorkers].map(killGroup));
}

/** SIGKILLs the worker's process group (tsx and the worker under it) and waits until no process of it is left. */
async function killGroup(child: ChildProcess): Promise<void> {
  liveWorkers.delete(child);
  const group = child.pid!;
  if (!signalGroup(group, 'SIGKILL')) return;
  await waitFor(`worker process group ${group} to be gone`, () => !signalGroup(group, 0), { timeoutMs: 10_000, intervalMs: 20 });
}

/** Sends a signal to a process group; false when the group no longer exists. */
function signalGroup(group: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-group, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

function ready(child: ChildProcess, stderr: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => fail(`did not print "${workerReadyLine}" within ${readyTimeoutMs / 1000}s`), readyTimeoutMs);
    const fail = (reason: string) => {
      clearTimeout(timer);
      reject(new Error(`worker process ${reason}: ${stderr().trim()}`));
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.split('\n').includes(workerReadyLine)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code, signal) => fail(`exited (${signal ?? code}) before it was ready`));
  });
}
