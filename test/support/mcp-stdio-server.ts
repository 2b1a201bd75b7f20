// The test MCP server over stdio: a worker starts it from its MCP config, as it would any server's command.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestMcpServer } from './mcp-test-server';

void createTestMcpServer().connect(new StdioServerTransport());
