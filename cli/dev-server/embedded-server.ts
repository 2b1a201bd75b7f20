import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { portAccepts } from './free-port';
import { ServerProcess } from './server-process';
import { devServerArgs } from './dev-server-options';
import { ensureTemporalCli } from './find-temporal-cli';

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
export async function startEmbeddedServer(
  log: (line: string) => void,
  ports: EmbeddedPorts = embeddedPorts,
): Promise<EmbeddedServer> {
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
  const server = new ServerProcess(child, 'the Temporal dev server');
  // A connection attempt costs well under a millisecond; the server is up about 200 ms after its spawn.
  await server.waitUntilReady(() => answersNamespaceLookup(address), {
    what: `serving on ${address}`,
    timeoutMs: startupTimeoutMs,
    intervalMs: 50,
  });
  return { address, stop: () => server.stop() };
}

/** Whether a Temporal server on `address` answers a lookup of the default namespace: it is serving, not just listening. */
export async function answersNamespaceLookup(address: string): Promise<boolean> {
  if (!(await portAccepts(Number(address.split(':')[1])))) return false;
  // Loaded here, not at the top: the CLI spawns the server before it loads its heavier modules (cli.ts).
  const { Connection } = await import('@temporalio/client');
  const connection = await Connection.connect({ address, connectTimeout: 2_000 }).catch(() => undefined);
  if (!connection) return false;
  try {
    await connection.workflowService.describeNamespace({ namespace: 'default' });
    return true;
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}

let prestarted: Promise<EmbeddedServer> | undefined;
let prestartTaken = false;

/**
 * Starts the embedded server at once when a command will need it (no address configured, nothing answering on
 * 7233), so that it comes up while the CLI loads its modules (~0.2 s of a first run). `connect` takes it;
 * a command that ends without connecting stops it through `releasePrestartedServer`.
 */
export async function prestartEmbeddedServer(addressConfigured: boolean, log: (line: string) => void): Promise<void> {
  if (prestarted || addressConfigured || (await portAccepts(embeddedPorts.port))) return;
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
