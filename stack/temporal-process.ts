import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { runCommand } from '../cli/dev-server/build-tools';
import { ServerProcess } from '../cli/dev-server/server-process';

export interface TemporalServerProcess {
  /** host:port of the frontend's gRPC API. */
  address: string;
  pid: number;
  /** SIGKILL, as a crash or an OOM kill would end it, then the same server started again on the same database and ports. */
  crashAndRestart(): Promise<void>;
  stop(): Promise<void>;
}

export interface TemporalServerProcessOptions {
  server: string;
  /** The directory holding docker.yaml (stack/server-config.ts). */
  configDirectory: string;
  /** The environment docker.yaml is rendered from. */
  environment: Record<string, string>;
  address: string;
  /** Where the server's log goes (JSON lines; a lot of them). */
  logFile: string;
  /** The Temporal CLI, to ask the frontend whether it serves. */
  cli: string;
}

/** Starts `temporal-server --env docker start` (all four services in one process, as the image does). */
export async function startTemporalServer(options: TemporalServerProcessOptions): Promise<TemporalServerProcess> {
  let current = await launch(options);
  return {
    address: options.address,
    get pid() {
      return current.pid;
    },
    async crashAndRestart() {
      await current.kill();
      current = await launch(options);
    },
    stop: () => current.stop(),
  };
}

async function launch(options: TemporalServerProcessOptions): Promise<ServerProcess> {
  const log = openSync(options.logFile, 'a');
  const child = spawn(
    options.server,
    ['--root', options.configDirectory, '--config', '.', '--env', 'docker', '--allow-no-auth', 'start'],
    { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.environment }, stdio: ['ignore', log, log] },
  );
  closeSync(log);
  // The server drains for a while on SIGTERM (membership leave, shard handoff); 20 s, then SIGKILL.
  const server = new ServerProcess(child, `the Temporal server (log: ${options.logFile})`, 20_000);
  await server.waitUntilReady(() => serving(options.cli, options.address), {
    what: `the frontend on ${options.address} answering a health check`,
    timeoutMs: 120_000,
    intervalMs: 500,
  });
  return server;
}

function serving(cli: string, address: string): Promise<boolean> {
  return runCommand(cli, ['operator', 'cluster', 'health', '--address', address], process.env, 'hide').then(
    () => true,
    () => false,
  );
}
