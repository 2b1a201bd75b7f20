// The test MCP server as a program: over stdio (how a worker starts it from its MCP config), or with
// `--http PORT` over streamable HTTP on 127.0.0.1, to try MCP tools by hand (docs/mcp.md, "Using MCP tools").
// `--stderr-env` first prints its whole environment to stderr, as a careless server might (test/e2e/mcp-secrets.test.ts).
if (process.argv.includes('--stderr-env')) console.error(`environment: ${JSON.stringify(process.env)}`);
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestMcpServer, startHttpMcpServer } from './mcp-test-server';

const httpFlag = process.argv.indexOf('--http');
if (httpFlag >= 0) {
  void startHttpMcpServer(Number(process.argv[httpFlag + 1] ?? 0)).then((server) =>
    console.error(`MCP test server on ${server.url}`),
  );
} else {
  void createTestMcpServer().connect(new StdioServerTransport());
}
