import http from 'node:http';
import { parseArgs } from 'node:util';
import { defaultAgentName, defaultApprovalTimeoutSeconds } from '../../core/limits';
import type { AgentInput } from '../../core/resolve-input';
import { createAgentMcpServer, type AgentMcpServerOptions } from '../../serve/mcp/agent-server';
import { createAgentMcpHttpHandler } from '../../serve/mcp/http-endpoint';
import { createModernAgentMcpServer } from '../../serve/mcp/modern-server';
import { serveAgentMcpStdio } from '../../serve/mcp/stdio-endpoint';
import { toNodeListener } from '../../serve/http/node-listener';
import { assertStartable } from '../check-run';
import { connect } from '../connect';
import { UsageError } from '../help';
import { InterruptListener } from '../interrupt';
import { principalFromFlags, principalOptions } from '../principal-flags';
import type { Output } from '../output';
import { cliRegistry } from '../registry';
import { withWorkerProof } from '../serve-worker-proof';
import { agentInputFromFlags, agentOptions, attachNegativeNumbers, parseInteger } from './agent-flags';
import { listen, listFlag, maxBodyBytesFlag, servedHosts } from './serve';

// What a run's flags set that makes no sense for every tool at once: the agent is the tool, the id is each run's own.
const { agent: _agent, id: _id, stream: _stream, 'no-stream': _noStream, ...runOptions } = agentOptions;

/**
 * `agent mcp [--http [--port N] [--host H] [--max-body-bytes N] ...] [--agents a,b]`: the registered agents (the built-in ones and
 * AGENT_DEFINITIONS', as the workers have them) as MCP tools (serve/mcp/), over stdio (the default: stdout is the
 * protocol's, everything else goes to stderr) or over Streamable HTTP at /mcp with `agent serve`'s rules: loopback
 * unless --principal-header or --allow-unauthenticated, Origin and Host checked, runs visible to their owner only.
 * The run flags (--workspace, --approve-tools, --yes, limits) apply to every call, as they do to `agent run`.
 */
export async function mcpCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: attachNegativeNumbers(argv),
    allowPositionals: true,
    options: {
      ...runOptions,
      agents: { type: 'string' },
      http: { type: 'boolean', default: false },
      port: { type: 'string' },
      host: { type: 'string' },
      ...principalOptions,
      'allowed-origins': { type: 'string' },
      'allowed-hosts': { type: 'string' },
      'max-body-bytes': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError('mcp takes no prompt: each tool call brings its own');
  const httpOnly = [
    'port',
    'host',
    'principal-header',
    'proxy-secret-env',
    'trusted-proxy',
    'allowed-origins',
    'allowed-hosts',
    'max-body-bytes',
  ] as const;
  const stray = httpOnly.find((flag) => values[flag] !== undefined);
  if (!values.http && (stray || values['allow-unauthenticated'])) {
    throw new UsageError(
      `--${stray ?? 'allow-unauthenticated'} is a flag of --http; over stdio the client that started this command is the only user`,
    );
  }
  const host = values.host ?? '127.0.0.1';
  // Before anything else: an open address with nobody verified is refused first.
  const authorize = values.http ? principalFromFlags('mcp', host, values) : undefined;
  // A tool call's files (an `attachments` argument, as base64) travel in its request, as a chat message's do.
  const maxBodyBytes = maxBodyBytesFlag(values['max-body-bytes']);
  const registry = cliRegistry();
  const agents = values.agents !== undefined ? listFlag(values.agents) : registry.listedAgentNames();
  const unknown = agents.filter((name) => !registry.agents.has(name));
  if (unknown.length > 0 || agents.length === 0)
    throw new UsageError(
      `--agents: ${unknown.length ? `unknown ${unknown.join(', ')}` : 'name at least one'}; registered agents: ${registry.listedAgentNames().join(', ')}`,
    );
  // Each tool's run, as `agent run --agent <name>` would start it; the default agent as `agent run` without --agent.
  const inputFor = (name: string): Omit<AgentInput, 'prompt'> => ({
    ...agentInputFromFlags(name === defaultAgentName ? values : { ...values, agent: name }),
    stream: false,
  });
  // Before anything starts: a tool whose runs could not start is refused here (exit 2), not at its first call.
  for (const name of agents) await assertStartable({ ...inputFor(name), prompt: 'check' });
  const approvalTimeoutSeconds =
    values['approval-timeout'] !== undefined
      ? parseInteger('--approval-timeout', values['approval-timeout'])
      : defaultApprovalTimeoutSeconds;

  const listener = new InterruptListener();
  const session = await connect({ ensureWorker: true, log: output.info });
  const options: AgentMcpServerOptions = {
    client: withWorkerProof(session),
    taskQueue: session.taskQueue,
    registry,
    agents,
    inputFor,
    approvalTimeoutMs: approvalTimeoutSeconds * 1000,
    log: output.info,
  };
  try {
    if (authorize) await serveHttp(options, { ...values, maxBodyBytes }, host, authorize, output, listener);
    else await serveStdio(options, output, listener);
    return 0;
  } finally {
    listener.close();
    await session.close();
  }
}

/**
 * Over stdin and stdout, for the one client that started this process (of either MCP revision:
 * serve/mcp/stdio-endpoint.ts); it ends when the client closes stdin.
 */
async function serveStdio(options: AgentMcpServerOptions, output: Output, listener: InterruptListener): Promise<void> {
  const served = serveAgentMcpStdio(options);
  output.info(`serving ${options.agents.length} agent(s) over MCP on stdio: ${options.agents.join(', ')}`);
  await Promise.race([served.closed, listener.signalled]);
  await served.close();
}

async function serveHttp(
  options: AgentMcpServerOptions,
  values: { port?: string; 'allowed-origins'?: string; 'allowed-hosts'?: string; maxBodyBytes?: number },
  host: string,
  authorize: (request: Request) => string | undefined,
  output: Output,
  listener: InterruptListener,
): Promise<void> {
  const port = values.port !== undefined ? parseInteger('--port', values.port) : 3001;
  let handler: ReturnType<typeof createAgentMcpHttpHandler> | undefined;
  const server = http.createServer(
    toNodeListener(async (request) =>
      new URL(request.url).pathname === mcpPath
        ? handler!.handle(request)
        : Response.json({ error: `MCP is at ${mcpPath}` }, { status: 404 }),
    ),
  );
  try {
    const boundPort = await listen(server, port, host);
    // Made once the port is known: the names it answers to include it (as agent serve's).
    handler = createAgentMcpHttpHandler({
      allowedHosts: [...servedHosts(host, boundPort), ...listFlag(values['allowed-hosts'])],
      allowedOrigins: listFlag(values['allowed-origins']),
      authorize,
      serverFor: (principal) => createAgentMcpServer(options, principal),
      modernServerFor: (principal, gone) => createModernAgentMcpServer(options, principal, gone),
      ...(values.maxBodyBytes !== undefined && { maxBodyBytes: values.maxBodyBytes }),
    });
    output.info(
      `serving ${options.agents.length} agent(s) over MCP at http://${host.includes(':') ? `[${host}]` : host}:${boundPort}${mcpPath}: ${options.agents.join(', ')} (Ctrl-C stops)`,
    );
    await listener.signalled;
  } finally {
    await handler?.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const mcpPath = '/mcp';
