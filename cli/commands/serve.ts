import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { assertRegistered, assertRunnable } from '../../client/start-agent';
import { createAgUiHandler } from '../../web/ag-ui-handler';
import { createChatHandler } from '../../web/chat-handler';
import { toNodeListener } from '../../web/node-listener';
import { connect } from '../connect';
import { UsageError } from '../help';
import { InterruptListener } from '../interrupt';
import { packageRoot } from '../../install/package-root';
import type { Output } from '../output';
import { cliRegistry } from '../registry';
import { agentInputFromFlags, agentOptions, attachNegativeNumbers, parseInteger } from './agent-flags';

/** Where `npm run build:web` writes the chat page (examples/web-chat): dist/ of the repository or of the installed package. */
const builtPage = path.join(packageRoot, 'dist', 'web-chat');

/** Where AG-UI clients (CopilotKit...) post a RunAgentInput; everything else goes to the chat handler. */
const agUiPath = '/api/ag-ui';

/** What needs approval in a web chat unless --approve-tools says otherwise, as in `agent chat`. */
const serveApprovesByDefault = ['write_file'];

/**
 * `agent serve [--port N] [--host H] [--static DIR]`: the useChat endpoint (createChatHandler, docs/web.md) at
 * /api/chat, the AG-UI endpoint (createAgUiHandler) over the same sessions at /api/ag-ui, and a chat page, with the connection settings and embedded dev server `agent chat` uses. Every request
 * is one principal (`local`) unless --principal-header names a header a proxy in front sets to the signed-in user.
 */
export async function serveCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: attachNegativeNumbers(argv),
    allowPositionals: true,
    options: {
      ...agentOptions,
      port: { type: 'string' },
      host: { type: 'string' },
      static: { type: 'string' },
      'principal-header': { type: 'string' },
      'idle-timeout': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError('serve takes no prompt: the page sends the messages');
  const port = values.port !== undefined ? parseInteger('--port', values.port) : 3000;
  const host = values.host ?? '127.0.0.1';
  const staticDirectory = values.static ? path.resolve(values.static) : existsSync(builtPage) ? builtPage : undefined;
  if (values.static && !existsSync(staticDirectory!)) throw new UsageError(`--static ${values.static}: no such directory`);
  const { prompt: _prompt, ...input } = {
    ...agentInputFromFlags(values, serveApprovesByDefault),
    session: { idleTimeoutSeconds: values['idle-timeout'] ? parseInteger('--idle-timeout', values['idle-timeout']) : 3600 },
  };
  await assertRunnable(input);
  const header = values['principal-header']?.toLowerCase();
  const listener = new InterruptListener();
  const session = await connect({
    ensureWorker: true,
    log: output.info,
    beforeOwnWorker: () => assertRegistered(input, cliRegistry()),
  });
  // One set of options for both endpoints: the same sessions, principals and ownership rule.
  const options = {
    client: session.client,
    taskQueue: session.taskQueue,
    input,
    authorize: (request: Request) => (header ? (request.headers.get(header) ?? undefined) : 'local'),
  };
  const chat = createChatHandler({ ...options, staticDirectory });
  const agUi = createAgUiHandler(options);
  const server = http.createServer(
    toNodeListener((request) => (new URL(request.url).pathname === agUiPath ? agUi(request) : chat(request))),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    const address = server.address();
    const url = `http://${host}:${typeof address === 'object' && address ? address.port : port}`;
    if (!staticDirectory) output.info('no chat page built: `npm run build:web` builds it (or --static DIR); the API is served');
    output.info(
      `serving ${url}/api/chat, AG-UI at ${url}${agUiPath}${staticDirectory ? ` and the chat page at ${url}/` : ''} (Ctrl-C stops)`,
    );
    await listener.signalled;
    return 0;
  } finally {
    listener.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await session.close();
  }
}
