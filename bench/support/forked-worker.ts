import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../cli/dev-server/free-port';
import type { WorkerStats } from '../sessions/session-worker';

const script = path.join(__dirname, '..', 'sessions', 'session-worker.ts');
// On a 2-core machine shared with other work, loading the worker (tsx, the SDK, a bundle) has taken over 2 minutes.
const readyTimeoutMs = 300_000;

export interface ForkedWorker {
  pid: number;
  metricsUrl: string;
  stats(): Promise<WorkerStats>;
  /** Writes a V8 heap snapshot of the worker's main thread to `file` (after a full GC when BENCH_WORKER_HEAP_SNAPSHOT is set). */
  heapSnapshot(file: string): Promise<void>;
  /** Graceful shutdown (in-flight tasks finish), then the process exits. */
  stop(): Promise<void>;
}

/**
 * Forks bench/sessions/session-worker.ts (tsx loaded in the same process, so
 * its pid is the worker's) and resolves once it polls.
 */
export async function forkWorker(env: NodeJS.ProcessEnv): Promise<ForkedWorker> {
  const metricsPort = await freePort();
  const child = fork(script, [], {
    // BENCH_WORKER_CPU_PROFILE=<dir> writes the worker's V8 CPU profile there when it exits (to see where its time goes).
    execArgv: [
      '--import',
      'tsx',
      ...(env.BENCH_WORKER_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${env.BENCH_WORKER_CPU_PROFILE}`] : []),
      // BENCH_WORKER_HEAP_SNAPSHOT=<dir>: heap snapshots need a full GC first, to count only what is retained.
      ...(env.BENCH_WORKER_HEAP_SNAPSHOT ? ['--expose-gc'] : []),
    ],
    env: { ...env, BENCH_METRICS_PORT: String(metricsPort) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the session worker did not start within 5 minutes')), readyTimeoutMs);
    child.once('exit', (code) => reject(new Error(`the session worker exited with code ${code} before it was ready`)));
    child.once('message', (message) => {
      clearTimeout(timer);
      if (message === 'ready') resolve();
      else reject(new Error(`unexpected message from the session worker: ${JSON.stringify(message)}`));
    });
  });
  child.removeAllListeners('exit');
  return {
    pid: child.pid!,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    stats: () => request<WorkerStats>(child, 'stats'),
    heapSnapshot: (file) => request<{ written: string }>(child, { heapSnapshot: file }).then(() => undefined),
    stop: () => stop(child),
  };
}

function request<T>(child: ChildProcess, question: string | object): Promise<T> {
  return new Promise<T>((resolve) => {
    child.once('message', (message) => resolve(message as T));
    child.send(question);
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.send('stop');
  });
}
