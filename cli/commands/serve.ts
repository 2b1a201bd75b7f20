import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createA2AHandler } from '../../a2a/a2a-handler';
import { proxyHeaderSecurity } from '../../a2a/agent-card';
import { defaultAgentName } from '../../core/limits';
import { createAgUiHandler } from '../../web/ag-ui-handler';
import { createChatHandler } from '../../web/chat-handler';
import { toNodeListener } from '../../serve/http/node-listener';
import { assertStartable } from '../check-run';
import { connect } from '../connect';
import { UsageError } from '../help';
import { InterruptListener } from '../interrupt';
import { principalFromFlags, principalOptions } from '../principal-flags';
import { packageRoot } from '../../install/package-root';
import { cliRegistry } from '../registry';
import type { Output } from '../output';
import { withWorkerProof } from '../serve-worker-proof';
import { agentInputFromFlags, agentOptions, attachNegativeNumbers, parseInteger } from './agent-flags';

/** Where `npm run build:web` writes the chat page (examples/web-chat): dist/ of the repository or of the installed package. */
const builtPage = path.join(packageRoot, 'dist', 'web-chat');

/** Where AG-UI clients (CopilotKit...) post a RunAgentInput; everything else goes to the chat handler. */
const agUiPath = '/api/ag-ui';

/** Where A2A callers find the agent (docs/a2a.md); its card is at the server's root too. */
const a2aPath = '/a2a';

/** What needs approval in a web chat unless --approve-tools says otherwise, as in `agent chat`. */
const serveApprovesByDefault = ['write_file'];

/**
 * `agent serve [--port N] [--host H] [--static DIR]`: the useChat endpoint (createChatHandler, docs/web.md) at
 * /api/chat, the AG-UI endpoint (createAgUiHandler) over the same sessions at /api/ag-ui, the agent over A2A
 * (createA2AHandler, docs/a2a.md: its card at /.well-known/agent-card.json, a task per run at /a2a/<agent>), and a
 * chat page, with the connection settings and embedded dev server `agent chat` uses. Every request
 * is one principal (`local`) unless --principal-header names a header a proxy in front sets to the signed-in user.
 * Only this server's own pages may call it (or --allowed-origins), by the names it was bound to (or --allowed-hosts).
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
      ...principalOptions,
      'idle-timeout': { type: 'string' },
      'allowed-origins': { type: 'string' },
      'allowed-hosts': { type: 'string' },
      'max-body-bytes': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError('serve takes no prompt: the page sends the messages');
  const port = values.port !== undefined ? parseInteger('--port', values.port) : 3000;
  const host = values.host ?? '127.0.0.1';
  const authorize = principalFromFlags('serve', host, values);
  const maxBodyBytes = maxBodyBytesFlag(values['max-body-bytes']);
  const staticDirectory = values.static ? path.resolve(values.static) : existsSync(builtPage) ? builtPage : undefined;
  if (values.static && !existsSync(staticDirectory!)) throw new UsageError(`--static ${values.static}: no such directory`);
  const { prompt: _prompt, ...input } = {
    ...agentInputFromFlags(values, serveApprovesByDefault),
    session: { idleTimeoutSeconds: values['idle-timeout'] ? parseInteger('--idle-timeout', values['idle-timeout']) : 3600 },
  };
  // Before anything starts, whoever's worker will run the chats: settings no chat could start with are refused here
  // (exit 2), not at each chat's first message.
  await assertStartable(input);
  const listener = new InterruptListener();
  const session = await connect({ ensureWorker: true, log: output.info });
  // One set of options for both endpoints: the same sessions, principals and ownership rule.
  const options = {
    // A worker connect() counted on may have exited (the previous command's): requests prove one serves them.
    client: withWorkerProof(session),
    taskQueue: session.taskQueue,
    input,
    authorize,
    ...(maxBodyBytes !== undefined && { maxBodyBytes }),
  };
  // The handlers are made once the port is known: the names they answer to include it (servedHosts).
  let serveRequest: ((request: Request) => Promise<Response>) | undefined;
  const server = http.createServer(toNodeListener((request) => serveRequest!(request)));
  try {
    const boundPort = await listen(server, port, host);
    const guard = {
      allowedHosts: [...servedHosts(host, boundPort), ...listFlag(values['allowed-hosts'])],
      allowedOrigins: listFlag(values['allowed-origins']),
    };
    const chat = createChatHandler({ ...options, ...guard, staticDirectory });
    const agUi = createAgUiHandler({ ...options, ...guard });
    // A2A's tasks are one-shot runs of the served agent, with the chat's settings but no session.
    const { session: _session, ...taskInput } = input;
    const agent = taskInput.agent ?? defaultAgentName;
    const a2a = createA2AHandler({
      ...guard,
      client: options.client,
      taskQueue: options.taskQueue,
      authorize,
      registry: cliRegistry(),
      agents: [agent],
      rootAgent: agent,
      inputFor: () => taskInput,
      ...(values['principal-header'] && { securitySchemes: proxyHeaderSecurity(values['principal-header']) }),
    });
    serveRequest = (request) => {
      const pathname = new URL(request.url).pathname;
      if (pathname === agUiPath) return agUi(request);
      if (pathname.startsWith(`${a2aPath}/`) || pathname === '/.well-known/agent-card.json') return a2a(request);
      return chat(request);
    };
    const url = `http://${host}:${boundPort}`;
    if (!staticDirectory) output.info('no chat page built: `npm run build:web` builds it (or --static DIR); the API is served');
    output.info(
      `serving ${url}/api/chat, AG-UI at ${url}${agUiPath}, A2A at ${url}${a2aPath}/${agent}${staticDirectory ? ` and the chat page at ${url}/` : ''} (Ctrl-C stops)`,
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

/**
 * The `Host` names `agent serve` answers to: the one it was bound to and the loopback names, each with the port. A
 * page whose name was rebound to this address (DNS rebinding) says its own name, and is refused.
 */
/** Listens on `host`:`port` and returns the port bound (the one the system chose when `port` is 0). */
export async function listen(server: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}

export function servedHosts(bound: string, port: number): string[] {
  const names = new Set([
    bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound,
    '127.0.0.1',
    'localhost',
    '[::1]',
  ]);
  return [...names].map((name) => `${name}:${port}`);
}

/**
 * `--max-body-bytes N` of `agent serve` and `agent mcp --http`: undefined when not given (the handlers' default, 1 MiB).
 * A message's files travel in its request, as base64 (a third larger): 1 MiB takes about 750 KB of them. Below 1024
 * not even an ordinary request without files would fit, so that is refused as a mistake.
 */
export function maxBodyBytesFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const bytes = parseInteger('--max-body-bytes', value);
  if (bytes < 1024) throw new UsageError('--max-body-bytes must be at least 1024');
  return bytes;
}

/** A comma-separated flag's values (`--allowed-origins https://a.example,https://b.example`). */
export function listFlag(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}
