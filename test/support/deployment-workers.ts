import { spawn, type ChildProcess } from 'node:child_process';
import type { temporal } from '@temporalio/proto';
import { cachedCliPath } from '../../cli/dev-server/find-temporal-cli';
import { cliEnvironment } from './cli';
import { typescriptArgs } from './typescript-process';
import { waitFor } from './wait-for';

/**
 * `npm run worker` (worker/main.ts) in processes of their own, as deployed builds are, for the tests of what a deploy
 * does to runs in flight (worker-versioning, deploy-rows). Each in a process group of its own: tsx relays no SIGKILL.
 */
export class WorkerProcesses {
  private readonly started: ChildProcess[] = [];

  /** Its result goes on top of the tests' CLI environment (the dev server, the workflow bundle); read at each start. */
  constructor(private readonly baseEnv: () => NodeJS.ProcessEnv) {}

  /** A worker, resolved once it polls. */
  async start(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
    const child = spawn(process.execPath, typescriptArgs('worker/main.ts'), {
      env: cliEnvironment({ ...this.baseEnv(), ...env }),
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    this.started.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(
      `the worker to poll (${stderr})`,
      () => stderr.includes('worker polling task queue') || child.exitCode !== null,
      { timeoutMs: 90_000 },
    );
    if (child.exitCode !== null) throw new Error(`the worker exited: ${stderr}`);
    return child;
  }

  /** SIGKILLs the worker's process group and waits until the worker process is gone. */
  async stop(child: ChildProcess): Promise<void> {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      return; // Already gone.
    }
    await waitFor('the worker to exit', () => child.exitCode !== null || child.signalCode !== null, { timeoutMs: 10_000 });
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.started.map((child) => this.stop(child)));
  }
}

/** `temporal worker deployment set-current-version`, as docs/upgrades.md tells it, retried until the version has pollers. */
export async function setCurrentVersion(deploymentName: string, buildId: string): Promise<void> {
  const args = ['worker', 'deployment', 'set-current-version', '--address', process.env.TEST_TEMPORAL_ADDRESS!];
  args.push('--deployment-name', deploymentName, '--build-id', buildId, '--yes');
  let output = '';
  await waitFor(
    `build ${buildId} to become current (${output})`,
    async () => {
      const result = await collectProcess(cachedCliPath(), args);
      output = result.output;
      return result.code === 0;
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  );
}

/** The build ids of the worker deployment versions that completed these workflow tasks, in order. */
export function taskBuilds(events: temporal.api.history.v1.IHistoryEvent[]): string[] {
  return events
    .filter((event) => event.workflowTaskCompletedEventAttributes)
    .map((event) => event.workflowTaskCompletedEventAttributes!.deploymentVersion?.buildId ?? 'unversioned');
}

function collectProcess(program: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
