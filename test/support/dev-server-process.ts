import { spawn } from 'node:child_process';
import { answersNamespaceLookup } from '../../cli/dev-server/embedded-server';
import { ServerProcess } from '../../cli/dev-server/server-process';
import { forkSearchAttributeArgs } from '../../cli/dev-server/dev-server-options';

const startupTimeoutMs = 60_000;
const stopTimeoutMs = 15_000;

export interface DevServerOptions {
  /** The Temporal CLI binary; global-setup puts it in TEST_TEMPORAL_CLI. */
  cli?: string;
  port: number;
  /** The SQLite file holding the server's state; starting again on the same file resumes every run. */
  dbFilename: string;
  /** Serve the Web UI on this port (on 127.0.0.1), optionally pointed at a codec server; headless otherwise. */
  ui?: { port: number; codecEndpoint?: string };
  /** Dynamic config, `KEY=VALUE` each (e.g. a lowered Temporal limit). */
  dynamicConfig?: string[];
}

export interface DevServer {
  address: string;
  /** SIGTERM, as an operator or a container runtime stops a server, then waits for the process to exit. */
  stop(): Promise<void>;
}

/**
 * A Temporal dev server of the test's own (not the shared one global-setup
 * starts), so a test can stop it and start it again on the same state file.
 * Resolves once the server answers a namespace lookup.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const cli = options.cli ?? process.env.TEST_TEMPORAL_CLI;
  if (!cli) throw new Error('TEST_TEMPORAL_CLI is not set: run the tests through jest, with a Temporal CLI on this machine');
  const address = `127.0.0.1:${options.port}`;
  const child = spawn(
    cli,
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(options.port),
      ...uiArgs(options.ui),
      '--db-filename',
      options.dbFilename,
      '--log-level',
      'error',
      ...forkSearchAttributeArgs,
      ...(options.dynamicConfig ?? []).flatMap((setting) => ['--dynamic-config-value', setting]),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const server = new ServerProcess(child, `the dev server on ${address}`, stopTimeoutMs);
  liveServers.add(server);
  child.once('exit', () => liveServers.delete(server));
  await server.waitUntilReady(() => answersNamespaceLookup(address), {
    what: 'answering a namespace lookup',
    timeoutMs: startupTimeoutMs,
    intervalMs: 200,
  });
  return { address, stop: () => server.stop() };
}

function uiArgs(ui: DevServerOptions['ui']): string[] {
  if (!ui) return ['--headless'];
  return [
    '--ui-ip',
    '127.0.0.1',
    '--ui-port',
    String(ui.port),
    ...(ui.codecEndpoint ? ['--ui-codec-endpoint', ui.codecEndpoint] : []),
  ];
}

const liveServers = new Set<ServerProcess>();

/** SIGKILLs every dev server a test started that is still running. */
export async function killDevServers(): Promise<void> {
  await Promise.all([...liveServers].map((server) => server.kill()));
}
