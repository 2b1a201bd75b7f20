import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { workerReadyLine } from './worker-process';

const tsxCli = require.resolve('tsx/cli');
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
  /** Sends SIGKILL and waits for the process to be gone; returns the time the signal was sent. */
  kill(): Promise<number>;
  /** Whatever the process wrote to stderr, for failure messages. */
  stderr(): string;
}

/**
 * Starts test/support/worker-process.ts in its own process and resolves once it
 * is polling. Every worker started here is also in `liveWorkers` until it exits,
 * so an afterEach can kill whatever a failed test left behind.
 */
export async function spawnWorker(options: SpawnedWorkerOptions): Promise<SpawnedWorker> {
  const child = spawn(process.execPath, [tsxCli, script], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: options.address,
      AGENT_TASK_QUEUE: options.taskQueue,
      AGENT_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE,
      WORKER_IDENTITY: options.identity,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveWorkers.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => liveWorkers.delete(child));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8000)));
  const worker: SpawnedWorker = {
    identity: options.identity,
    pid: child.pid!,
    async kill() {
      const sentAt = Date.now();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      return sentAt;
    },
    stderr: () => stderr,
  };
  try {
    await ready(child, () => stderr);
  } catch (error) {
    await worker.kill();
    throw error;
  }
  return worker;
}

const liveWorkers = new Set<ChildProcess>();

/** SIGKILLs every spawned worker still running and waits until they are gone. */
export async function killSpawnedWorkers(): Promise<void> {
  await Promise.all(
    [...liveWorkers].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
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
