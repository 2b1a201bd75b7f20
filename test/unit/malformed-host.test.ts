import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client, Connection } from '@temporalio/client';
import { createAgentMcpHttpHandler } from '../../serve/mcp/http-endpoint';
import { createChatHandler } from '../../web/chat-handler';
import { toNodeListener } from '../../serve/http/node-listener';

// A Host no URL can hold reached both servers' handlers as a 500 ("the handler failed"): the chat endpoint as agent
// serve mounts it and agent mcp --http's, on real sockets, sent raw requests with forged Host headers.

const servers: http.Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listening(handler: (request: Request) => Promise<Response>): Promise<number> {
  const server = http.createServer(toNodeListener(handler));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** One raw HTTP/1.1 request, as no fetch would send it; the status and body of the answer. */
function raw(port: number, head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('end', () => {
      const [top, ...rest] = answer.split('\r\n\r\n');
      resolve({ status: Number(top.split(' ')[1]), body: rest.join('\r\n\r\n') });
    });
    socket.end(`${head}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
  });
}

it.each([['a b'], ['[::1'], ['u@127.0.0.1'], ['u:p@localhost:3000'], ['127.0.0.1/x']])(
  'answers Host %j with 400 on both servers, saying why',
  async (host) => {
    // A client that would only connect if a request got past the guard, to an address nothing serves.
    const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const chat = await listening(
      createChatHandler({ client, taskQueue: 'none', input: { workspace: '/tmp' }, authorize: () => 'local' }),
    );
    const mcp = createAgentMcpHttpHandler({
      authorize: () => 'local',
      serverFor: () => new Server({ name: 'test', version: '1.0.0' }, { capabilities: { tools: {} } }),
    });
    const mcpPort = await listening((request) => mcp.handle(request));
    for (const [port, path] of [
      [chat, '/api/chat'],
      [mcpPort, '/mcp'],
    ] as const) {
      const answer = await raw(port, `POST ${path} HTTP/1.1\r\nHost: ${host}`);
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('a malformed request: the Host header');
    }
    await mcp.close();
  },
);

it('answers a target with credentials 400, and a well-formed Host it does not answer to 403, as before', async () => {
  const mcp = createAgentMcpHttpHandler({
    authorize: () => 'local',
    serverFor: () => new Server({ name: 'test', version: '1.0.0' }, { capabilities: { tools: {} } }),
  });
  const port = await listening((request) => mcp.handle(request));
  const credentials = await raw(port, `POST http://u:p@127.0.0.1:${port}/mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}`);
  expect(credentials.status).toBe(400);
  expect(credentials.body).toContain('user name or password');
  const foreign = await raw(port, 'POST /mcp HTTP/1.1\r\nHost: attacker.example');
  expect(foreign.status).toBe(403);
  await mcp.close();
});
