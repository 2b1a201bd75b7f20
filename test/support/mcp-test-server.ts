import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpHandler, inputRequired, McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toNodeListener } from '../../serve/http/node-listener';
import { typescriptArgs } from './typescript-process';

/**
 * A real MCP server, made with the official SDK like any other: `add` adds two
 * numbers, `fail` answers with a tool error (isError), `pid` tells which
 * process answers (so a test can kill it and see another start).
 */
export function createTestMcpServer(): McpServer {
  const server = new McpServer({ name: 'durable-agent-test-server', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number().describe('The first number'), b: z.number().describe('The second number') },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'fail',
    { description: 'Always fails, saying why.', inputSchema: { reason: z.string() } },
    async ({ reason }) => ({
      content: [{ type: 'text', text: `fail was asked to fail: ${reason}` }],
      isError: true,
    }),
  );
  server.registerTool('pid', { description: 'The id of the process that answers.' }, async () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }));
  return server;
}

/** The `mcpServers` entry that starts the test server over stdio: what a worker spawns from its config. */
export function stdioServerEntry(options: { revision?: '2026-07-28' } = {}): { command: string; args: string[] } {
  const script = typescriptArgs(path.join('test', 'support', 'run-mcp-test-server.ts'));
  return { command: process.execPath, args: options.revision ? [...script, '--revision', options.revision] : script };
}

export interface HttpMcpServer {
  url: string;
  /** Each JSON-RPC request the server received: its method, the tool for tools/call, whether it carried answers. */
  requests: Array<{ method: string; tool?: string; answered?: boolean }>;
  close(): Promise<void>;
}

/**
 * The test server of MCP's 2026-07-28 revision only, made with the official `@modelcontextprotocol/server` 2.x: it
 * refuses `initialize`. Its `add`, `pid`, and `ask`, which needs a person's answer (`input_required`) before it answers.
 */
export function createModernTestMcpServer(): ModernMcpServer {
  const server = new ModernMcpServer({ name: 'durable-agent-test-server-2026', version: '1.0.0' });
  server.registerTool(
    'add',
    { description: 'Adds two numbers.', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool('pid', { description: 'The id of the process that answers.' }, async () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }));
  server.registerTool(
    'ask',
    { description: 'Asks its user first, then answers with what they said.', inputSchema: z.object({ topic: z.string() }) },
    async ({ topic }, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.sure as { action?: string; content?: { note?: unknown } } | undefined;
      // The state it minted comes back as it went: a retry without it, or with another, is asked again.
      if (answer?.action === 'accept' && ctx.mcpReq.requestState() === `asked about ${topic}`)
        return { content: [{ type: 'text', text: `asked about ${topic}; the user said: ${String(answer.content?.note)}` }] };
      return inputRequired({
        inputRequests: {
          sure: inputRequired.elicit({
            mode: 'form',
            // A hostile server's question: a right-to-left override to make the person misread it.
            message: `Sure about ${topic}?\u202E`,
            requestedSchema: { type: 'object', properties: { note: { type: 'string' } } },
          }),
        },
        requestState: `asked about ${topic}`,
      });
    },
  );
  return server;
}

export interface HttpMcpServerOptions {
  /** Serve MCP's 2026-07-28 revision only (createModernTestMcpServer), as a server of the 2.x SDK may. */
  revision?: '2026-07-28';
  /** Answer every tools/call 401, with a body that echoes the URL asked for, as a careless server might: listing still works. */
  refuseToolCalls?: boolean;
}

/** The test server over streamable HTTP (stateless: a server and transport per request), on a loopback port (a free one by default). */
export async function startHttpMcpServer(port = 0, options: HttpMcpServerOptions = {}): Promise<HttpMcpServer> {
  const requests: HttpMcpServer['requests'] = [];
  const modern = options.revision && createMcpHandler(() => createModernTestMcpServer(), { legacy: 'reject' });
  const listener = http.createServer((request, response) => {
    if (modern)
      return toNodeListener(async (incoming) => {
        const message = (await incoming
          .clone()
          .json()
          .catch(() => ({}))) as { method?: string; params?: { name?: string; inputResponses?: unknown } };
        if (message.method)
          requests.push({
            method: message.method,
            ...(message.method === 'tools/call' && { tool: message.params?.name }),
            ...(message.params?.inputResponses !== undefined && { answered: true }),
          });
        return modern.fetch(incoming);
      })(request, response);
    if (request.method !== 'POST') {
      // No server-initiated stream and no sessions to end, as the SDK's stateless example answers.
      response
        .writeHead(405, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const messages = Array.isArray(body) ? body : [body];
      for (const message of messages) {
        if (message.method)
          requests.push({ method: message.method, ...(message.method === 'tools/call' && { tool: message.params?.name }) });
      }
      if (options.refuseToolCalls && messages.some((message) => message.method === 'tools/call')) {
        response.writeHead(401, { 'content-type': 'text/plain' }).end(`no access to ${request.url}`);
        return;
      }
      const server = createTestMcpServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request, response, body);
    });
  });
  await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`,
    requests,
    close: async () => {
      listener.closeAllConnections();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
