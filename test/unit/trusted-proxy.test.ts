import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { main } from '../../cli/main';
import { capturedOutput } from '../support/captured-output';
import { principalFromFlags, type PrincipalFlags } from '../../cli/principal-flags';
import { createAgentMcpHttpHandler } from '../../serve/mcp/http-endpoint';
import { toNodeListener } from '../../serve/http/node-listener';
import { Client, Connection } from '@temporalio/client';
import { serveHandler } from '../web/chat-client';

// A principal from a header is believed only from a proxy that proves itself (serve/http/trusted-proxy.ts, as agent
// serve and agent mcp --http take it from their flags): raw requests over a socket, with the header forged, against
// agent mcp's HTTP endpoint and agent serve's chat and AG-UI endpoints; and the open addresses the commands refuse
// before they start.

const secret = 'a-long-random-proxy-secret-0123456789';
const secretVariable = 'TRUSTED_PROXY_TEST_SECRET';
const addressBefore = process.env.TEMPORAL_ADDRESS;
beforeAll(() => {
  process.env[secretVariable] = secret;
  // An address nothing serves: a refusal must come before any connection is tried.
  process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
});
afterAll(() => {
  delete process.env[secretVariable];
  if (addressBefore === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = addressBefore;
});

/** agent mcp --http's endpoint as the command builds it for --host 0.0.0.0 and these flags, on a real socket. */
async function served(flags: PrincipalFlags): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createAgentMcpHttpHandler({
    allowedHosts: true,
    authorize: principalFromFlags('mcp', '0.0.0.0', { 'principal-header': 'X-User', ...flags }),
    serverFor: (principal) => {
      const server = new Server({ name: 'test', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: `of_${principal}`, inputSchema: { type: 'object' } }],
      }));
      return server;
    },
  });
  const server = http.createServer(toNodeListener((request) => handler.handle(request)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** An initialize request as alice, by whoever can write headers. */
const initialize = (url: string, headers: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-user': 'alice', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'forger', version: '1' } },
    }),
  });

it('believes the principal header only with the proxy secret, compared whole', async () => {
  const endpoint = await served({ 'proxy-secret-env': secretVariable });
  try {
    expect((await initialize(endpoint.url, {})).status).toBe(401);
    expect((await initialize(endpoint.url, { 'x-proxy-secret': `${secret}x` })).status).toBe(401);
    expect((await initialize(endpoint.url, { 'x-proxy-secret': secret.slice(0, -1) })).status).toBe(401);
    const proven = await initialize(endpoint.url, { 'x-proxy-secret': secret });
    expect(proven.status).toBe(200);
    expect(proven.headers.get('mcp-session-id')).toBeTruthy();
  } finally {
    await endpoint.close();
  }
});

it('believes the principal header only from a trusted proxy address, and both proofs when both are set', async () => {
  const elsewhere = await served({ 'trusted-proxy': '10.0.0.5,fd00::/8' });
  const here = await served({ 'trusted-proxy': '10.0.0.5, 127.0.0.0/8' });
  const both = await served({ 'trusted-proxy': '127.0.0.1', 'proxy-secret-env': secretVariable });
  try {
    // This test's socket comes from 127.0.0.1: not a listed proxy, whatever its headers say.
    expect((await initialize(elsewhere.url, { 'x-forwarded-for': '10.0.0.5' })).status).toBe(401);
    expect((await initialize(here.url, {})).status).toBe(200);
    expect((await initialize(both.url, {})).status).toBe(401);
    expect((await initialize(both.url, { 'x-proxy-secret': secret })).status).toBe(200);
  } finally {
    await Promise.all([elsewhere.close(), here.close(), both.close()]);
  }
});

it("believes agent serve's principal header only with the proxy secret: the chat and AG-UI endpoints", async () => {
  // As agent serve builds them for --host 0.0.0.0 --principal-header X-User --proxy-secret-env: a forged header is
  // refused before anything reaches Temporal (the client's address is one nothing serves, and the refusals are 401).
  const connection = Connection.lazy({ address: '127.0.0.1:1' });
  const options = {
    client: new Client({ connection }),
    taskQueue: 'unused',
    input: { workspace: '/tmp' },
    authorize: principalFromFlags('serve', '0.0.0.0', { 'principal-header': 'X-User', 'proxy-secret-env': secretVariable }),
    allowedHosts: true as const,
  };
  const served = await serveHandler(options);
  const forged = { 'content-type': 'application/json', 'x-user': 'alice', 'x-proxy-secret': `${secret}x` };
  try {
    const read = await fetch(`${served.api}/alices-chat`, { headers: forged });
    const post = await fetch(served.api, {
      method: 'POST',
      headers: forged,
      body: JSON.stringify({ id: 'alices-chat', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }),
    });
    const run = await fetch(served.agUi, {
      method: 'POST',
      headers: forged,
      body: JSON.stringify({
        threadId: 'alices-chat',
        runId: 'r1',
        state: {},
        messages: [],
        tools: [],
        context: [],
        forwardedProps: {},
      }),
    });
    expect([read.status, post.status, run.status]).toEqual([401, 401, 401]);
  } finally {
    await served.close();
    await connection.close();
  }
});

it.each([
  [['--principal-header', 'X-User'], /would listen on 0\.0\.0\.0 and believe X-User from anyone who reaches that address/],
  [
    ['--principal-header', 'X-User', '--proxy-secret-env', 'NO_SUCH_VARIABLE_SET'],
    /--proxy-secret-env NO_SUCH_VARIABLE_SET: that variable is not set/,
  ],
  [
    ['--principal-header', 'X-User', '--trusted-proxy', '10.0.0.0/33'],
    /--trusted-proxy: "10\.0\.0\.0\/33" is not an address or a network/,
  ],
  [['--trusted-proxy', '10.0.0.5'], /prove the proxy that sets --principal-header: name it/],
])('refuses serve and mcp --http on an open address with %j (exit 2)', async (args, message) => {
  for (const command of [['serve'], ['mcp', '--http']]) {
    const output = capturedOutput();
    expect(await main([...command, '--host', '0.0.0.0', '--port', '0', ...args], output)).toBe(2);
    expect(output.stderr).toMatch(message);
    expect(output.stderr).not.toContain('serving');
  }
});

it('refuses a secret short enough to guess', async () => {
  process.env.TRUSTED_PROXY_SHORT = 'short';
  const output = capturedOutput();
  expect(
    await main(
      ['serve', '--host', '0.0.0.0', '--principal-header', 'X-User', '--proxy-secret-env', 'TRUSTED_PROXY_SHORT'],
      output,
    ),
  ).toBe(2);
  expect(output.stderr).toMatch(/the secret is shorter than 16 characters/);
  delete process.env.TRUSTED_PROXY_SHORT;
});
