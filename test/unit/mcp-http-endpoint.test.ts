import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createAgentMcpHttpHandler } from '../../serve/mcp/http-endpoint';

// agent mcp's Streamable HTTP endpoint in front of a plain SDK server, the SDK's own client talking to it through
// the handler (no socket): whose sessions are whose, and how many stay open.

const url = 'http://127.0.0.1:3001/mcp';

function endpoint(maxSessionsPerPrincipal?: number) {
  return createAgentMcpHttpHandler({
    authorize: (request) => request.headers.get('x-user') ?? undefined,
    serverFor: (principal) => {
      const server = new Server({ name: 'test', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: `tool_of_${principal}`, inputSchema: { type: 'object' } }],
      }));
      return server;
    },
    ...(maxSessionsPerPrincipal !== undefined && { maxSessionsPerPrincipal }),
  });
}

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function connect(handler: ReturnType<typeof endpoint>, user: string): Promise<Client> {
  const client = new Client({ name: user, version: '1.0.0' });
  clients.push(client);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { 'X-User': user } },
      fetch: (input, init) => handler.handle(new Request(input, init)),
    }),
  );
  return client;
}

const sessionOf = (client: Client) => (client.transport as StreamableHTTPClientTransport).sessionId!;

it("answers a session's requests for its own principal only", async () => {
  const handler = endpoint();
  const alice = await connect(handler, 'alice');
  expect((await alice.listTools()).tools.map((tool) => tool.name)).toEqual(['tool_of_alice']);
  const asBob = await handler.handle(
    new Request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-user': 'bob',
        'mcp-session-id': sessionOf(alice),
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    }),
  );
  expect(asBob.status).toBe(404);
  const foreign = await handler.handle(
    new Request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example', 'x-user': 'alice' },
      body: '{}',
    }),
  );
  expect(foreign.status).toBe(403);
  await handler.close();
});

it("closes a principal's oldest session past the bound, and nobody else's", async () => {
  const handler = endpoint(2);
  const bob = await connect(handler, 'bob');
  const first = await connect(handler, 'alice');
  await connect(handler, 'alice');
  await connect(handler, 'alice');
  await expect(first.listTools()).rejects.toThrow(/404|no such MCP session/);
  expect((await bob.listTools()).tools.map((tool) => tool.name)).toEqual(['tool_of_bob']);
  await handler.close();
});
