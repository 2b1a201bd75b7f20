import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
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

it('never closes a session under a call in flight: the oldest idle one goes, and with none idle the new one is refused', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  // Resolved as each call reaches the tool: the first, then the second.
  const reached: Array<() => void> = [];
  const calls = [0, 1].map((index) => new Promise<void>((resolve) => (reached[index] = resolve)));
  let callsSeen = 0;
  const handler = createAgentMcpHttpHandler({
    authorize: (request) => request.headers.get('x-user') ?? undefined,
    serverFor: () => {
      const server = new Server({ name: 'test', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(CallToolRequestSchema, async () => {
        reached[callsSeen++]();
        await gate;
        return { content: [{ type: 'text', text: 'the answer' }], _meta: { run: 'run-1' } };
      });
      return server;
    },
    maxSessionsPerPrincipal: 2,
  });
  const busy = await connect(handler, 'alice');
  const idle = await connect(handler, 'alice');
  const call = busy.callTool({ name: 'slow', arguments: {} });
  await calls[0];
  // The third session: the idle one closes, not the one whose client waits on an answer.
  const third = await connect(handler, 'alice');
  await expect(idle.listTools()).rejects.toThrow(/404|no such MCP session/);
  // The third waits on a call too: now every session of alice's does, and a fourth is refused, saying why.
  const thirdCall = third.callTool({ name: 'slow', arguments: {} });
  await calls[1];
  const refused = await handler.handle(
    new Request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-user': 'alice' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fourth', version: '1' } },
      }),
    }),
  );
  expect(refused.status).toBe(429);
  expect(await refused.json()).toEqual({
    jsonrpc: '2.0',
    error: { code: -32000, message: expect.stringMatching(/alice has 2 MCP sessions open, each waiting on a call/) },
    id: null,
  });
  release();
  expect(await call).toMatchObject({ content: [{ type: 'text', text: 'the answer' }] });
  expect(await thirdCall).toMatchObject({ content: [{ type: 'text', text: 'the answer' }] });
  // Answered, they are idle again: a new session closes the oldest of them.
  await connect(handler, 'alice');
  await expect(busy.listTools()).rejects.toThrow(/404|no such MCP session/);
  await handler.close();
});

it('refuses a body over the limit, or not JSON, with a JSON-RPC error object', async () => {
  const handler = endpoint();
  const post = (body: string) =>
    handler.handle(
      new Request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-user': 'alice' },
        body,
      }),
    );
  const malformed = await post('{"jsonrpc": "2.0", ');
  expect(malformed.status).toBe(400);
  expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
  const large = await post(
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }),
  );
  expect(large.status).toBe(413);
  expect(await large.json()).toMatchObject({
    jsonrpc: '2.0',
    error: { code: -32000, message: expect.stringMatching(/over/) },
    id: null,
  });
  const foreign = await handler.handle(
    new Request(url, { method: 'POST', headers: { 'content-type': 'text/plain', 'x-user': 'alice' }, body: '{}' }),
  );
  expect(foreign.status).toBe(415);
  expect(await foreign.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
  await handler.close();
});

it('takes a body up to maxBodyBytes (agent mcp --http --max-body-bytes) and refuses one past it with 413', async () => {
  const handler = createAgentMcpHttpHandler({
    authorize: () => 'alice',
    serverFor: () => {
      const server = new Server({ name: 'test', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(CallToolRequestSchema, (request) => ({
        content: [{ type: 'text', text: `got ${String(request.params.arguments?.pad).length} characters` }],
      }));
      return server;
    },
    maxBodyBytes: 4096,
  });
  const statuses: number[] = [];
  const client = new Client({ name: 'alice', version: '1.0.0' });
  clients.push(client);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: async (input, init) => {
        const response = await handler.handle(new Request(input, init));
        statuses.push(response.status);
        return response;
      },
    }),
  );
  // A call of about 3 KB, under the limit: it reaches the server and is answered.
  const under = await client.callTool({ name: 'echo', arguments: { pad: 'x'.repeat(3000) } });
  expect(under.content).toEqual([{ type: 'text', text: 'got 3000 characters' }]);
  // Past 4096 bytes (far under the 1 MiB default): refused before any server reads it, saying why.
  await expect(client.callTool({ name: 'echo', arguments: { pad: 'x'.repeat(5000) } })).rejects.toThrow(
    /the body is over 4096 bytes/,
  );
  expect(statuses.at(-1)).toBe(413);
  await handler.close();
});
