import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { devServerArgs } from '../temporal-cli/dev-server-options';
import { ensureTemporalCli } from '../temporal-cli/find-cli';

const startupTimeoutMs = 60_000;

/** The embedded server's ports: 7233 and 8233, as the Temporal CLI's own; the first-run benchmark picks free ones. */
export interface EmbeddedPorts {
  port: number;
  uiPort: number;
}

const embeddedPorts: EmbeddedPorts = { port: 7233, uiPort: 8233 };

export interface EmbeddedServer {
  address: string;
  stop(): Promise<void>;
}

/** Where the embedded dev server keeps its state, so runs survive restarts of the CLI. */
export function embeddedStateFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGENT_STATE_FILE) return env.AGENT_STATE_FILE;
  const base = env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(base, 'durable-agent', 'temporal-dev.db');
}

/**
 * Starts a Temporal dev server on localhost:7233 with the Web UI on :8233 and
 * its state in a file. It lives as long as this process. The server's own
 * output is kept off stdout, which belongs to the agent's answer.
 */
export async function startEmbeddedServer(log: (line: string) => void, ports: EmbeddedPorts = embeddedPorts): Promise<EmbeddedServer> {
  const { port, uiPort } = ports;
  const address = `127.0.0.1:${port}`;
  const executable = await ensureTemporalCli(log);
  const dbFilename = embeddedStateFile();
  await mkdir(path.dirname(dbFilename), { recursive: true });
  log(`starting a local Temporal dev server (state in ${dbFilename}; Web UI http://localhost:${uiPort})`);
  if (executable.type === 'cached-download') {
    // No local binary: the SDK downloads one (needs internet) and runs it.
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const environment = await TestWorkflowEnvironment.createLocal({
      server: {
        executable,
        ip: '127.0.0.1',
        port,
        ui: true,
        uiPort,
        dbFilename,
        extraArgs: ['--log-level', 'error', ...devServerArgs],
      },
    });
    return { address: environment.address, stop: () => environment.teardown() };
  }
  const child = spawn(
    executable.path,
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--ui-port',
      String(uiPort),
      '--db-filename',
      dbFilename,
      '--log-level',
      'error',
      ...devServerArgs,
    ],
    // A process group of its own: Ctrl-C at the terminal reaches the CLI (which may only interrupt a turn), not
    // the server; the CLI stops it when it is done.
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  try {
    await waitUntilServing(child, address, () => stderr);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { address, stop: () => stopChild(child) };
}

async function waitUntilServing(child: ChildProcess, address: string, stderr: () => string): Promise<void> {
  const deadline = Date.now() + startupTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the Temporal dev server exited with ${child.exitCode}: ${stderr().trim()}`);
    if (await portAnswers(Number(address.split(':')[1]))) {
      // Loaded here, not at the top: the CLI spawns the server before it loads its heavier modules (cli.ts).
      const { Connection } = await import('@temporalio/client');
      const connection = await Connection.connect({ address, connectTimeout: 2_000 }).catch(() => undefined);
      const ready = await connection?.workflowService
        .describeNamespace({ namespace: 'default' })
        .then(() => true)
        .catch(() => false);
      await connection?.close();
      if (ready) return;
    }
    // A connection attempt costs well under a millisecond; the server is up about 200 ms after its spawn.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the Temporal dev server did not start within ${startupTimeoutMs / 1000}s: ${stderr().trim()}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export function portAnswers(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 500 });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

let prestarted: Promise<EmbeddedServer> | undefined;
let prestartTaken = false;

/**
 * Starts the embedded server at once when a command will need it (no address configured, nothing answering on
 * 7233), so that it comes up while the CLI loads its modules (~0.2 s of a first run). `connect` takes it;
 * a command that ends without connecting stops it through `releasePrestartedServer`.
 */
export async function prestartEmbeddedServer(addressConfigured: boolean, log: (line: string) => void): Promise<void> {
  if (prestarted || addressConfigured || (await portAnswers(embeddedPorts.port))) return;
  prestarted = startEmbeddedServer(log);
  // Its failure is reported where it is taken; until then it must not be an unhandled rejection.
  prestarted.catch(() => undefined);
}

/** The server `prestartEmbeddedServer` started, once: whoever takes it stops it. */
export function takePrestartedServer(): Promise<EmbeddedServer> | undefined {
  if (!prestarted || prestartTaken) return undefined;
  prestartTaken = true;
  return prestarted;
}

/** Stops a prestarted server nobody took (the command failed before it connected). */
export async function releasePrestartedServer(): Promise<void> {
  const server = takePrestartedServer();
  if (server) await (await server.catch(() => undefined))?.stop();
}
