import { parseArgs } from 'node:util';
import { connect } from '../connect';
import { startEmbeddedServer, embeddedStateFile } from '../dev-server/embedded-server';
import { portAccepts } from '../dev-server/free-port';
import { programName, UsageError } from '../help';
import { InterruptListener } from '../interrupt';
import { invocationDirectory, type Output } from '../output';
import { defaultWorkspaceRoot, loadConnectionSettings, taskQueue } from '../../worker/settings';
import { parseInteger } from './agent-flags';

/** The embedded server's own ports, which `agent run` looks for when no address is set. */
const defaultPorts = { port: 7233, uiPort: 8233 };

/**
 * `agent dev [--port N] [--ui-port N]`: the embedded dev server (the state file `agent run` uses), its Web UI and a
 * worker, kept running until Ctrl-C. A first `agent run` starts that server itself and stops it when it exits, and
 * the Web UI link it printed dies with it; with `agent dev` running in another terminal, `run`, `chat` and `serve`
 * find the server on 7233 and its worker polling, start neither, and their links stay open.
 */
export async function devCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { port: { type: 'string' }, 'ui-port': { type: 'string' } },
  });
  if (positionals.length > 0) throw new UsageError('dev takes no arguments');
  const port = values.port !== undefined ? portNumber('--port', values.port) : defaultPorts.port;
  const uiPort = values['ui-port'] !== undefined ? portNumber('--ui-port', values['ui-port']) : defaultPorts.uiPort;
  if (loadConnectionSettings().addressConfigured)
    throw new UsageError(
      'dev starts a local server of its own, and TEMPORAL_ADDRESS (or a Temporal config profile) names another: unset it, or keep a worker on that server with `npm run worker`',
    );
  for (const [flag, taken] of [
    ['--port', port],
    ['--ui-port', uiPort],
  ] as const) {
    if (await portAccepts(taken)) {
      output.error(`error: something already listens on 127.0.0.1:${taken} (another agent dev?): stop it, or choose ${flag}`);
      return 1;
    }
  }

  // Before the ready line: whoever reads it may press Ctrl-C at once.
  const listener = new InterruptListener();
  const server = await startEmbeddedServer(output.info, { port, uiPort });
  try {
    // This process's worker (connect) uses the server just started, and its Web UI, whatever the defaults say.
    process.env.TEMPORAL_ADDRESS = server.address;
    process.env.TEMPORAL_UI_URL = `http://localhost:${uiPort}`;
    const session = await connect({ ensureWorker: false, log: output.info });
    try {
      await session.startWorker('');
      const exports =
        port === defaultPorts.port && uiPort === defaultPorts.uiPort
          ? ''
          : `\n  in those terminals first: export TEMPORAL_ADDRESS=${server.address} TEMPORAL_UI_URL=http://localhost:${uiPort}`;
      output.info(
        [
          `Temporal dev server on ${server.address} (state in ${embeddedStateFile()}), Web UI http://localhost:${uiPort}`,
          `a worker on task queue "${taskQueue()}", serving workspaces under ${defaultWorkspaceRoot(process.env, invocationDirectory())}`,
          `runs of other terminals (${programName} run, chat, serve) use them: their Web UI links stay open until Ctrl-C here${exports}`,
        ].join('\n'),
      );
      await listener.signalled;
      output.info('stopping the worker and the dev server; the runs stay in the state file');
      return 0;
    } finally {
      await session.close();
    }
  } finally {
    listener.close();
    await server.stop();
  }
}

function portNumber(flag: string, text: string): number {
  const port = parseInteger(flag, text);
  if (port < 1 || port > 65535) throw new UsageError(`${flag} must be a port number, 1 to 65535, got "${text}"`);
  return port;
}
