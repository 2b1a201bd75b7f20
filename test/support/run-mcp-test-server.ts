// The test MCP server as a program: over stdio (how a worker starts it from its MCP config), or with
// `--http PORT` over streamable HTTP on 127.0.0.1, to try MCP tools by hand (docs/mcp.md, "Using MCP tools").
// `--stderr-env` first prints its whole environment to stderr, as a careless server might (test/e2e/mcp-secrets.test.ts).
// `--revision 2026-07-28` serves that revision only over stdio, with `@modelcontextprotocol/server` 2.x: it refuses
// `initialize`, as a server of the 2.x SDK may, and says on stderr which process it is.
if (process.argv.includes('--stderr-env')) console.error(`environment: ${JSON.stringify(process.env)}`);
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createModernTestMcpServer, createTestMcpServer, startHttpMcpServer } from './mcp-test-server';

const httpFlag = process.argv.indexOf('--http');
const revisionFlag = process.argv.indexOf('--revision');
if (httpFlag >= 0) {
  void startHttpMcpServer(Number(process.argv[httpFlag + 1] ?? 0)).then((server) =>
    console.error(`MCP test server on ${server.url}`),
  );
} else if (revisionFlag >= 0 && process.argv[revisionFlag + 1] === '2026-07-28') {
  console.error(`MCP test server (2026-07-28 only) pid ${process.pid}`);
  serveStdio(() => createModernTestMcpServer(), { legacy: 'reject' });
} else {
  void createTestMcpServer().connect(new StdioServerTransport());
}
