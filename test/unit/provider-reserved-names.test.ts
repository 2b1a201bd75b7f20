import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createAgentRegistry } from '../../agents/registry';
import type { McpConnections } from '../../mcp/connections';
import { McpCatalog } from '../../mcp/catalog';
import { createListMcpTools } from '../../activities/mcp/list-tools-activity';
import { defineProvider } from '../../providers';

// A provider declares the tool names it offers the model itself (reservedToolNames); the MCP listing asks the registry,
// which asks the providers, instead of knowing Anthropic's final_output. An MCP server cannot slip a tool in under one.

const echo = async () => ({
  message: { role: 'assistant' as const, content: 'hi', toolCalls: [] },
  finishReason: 'stop' as const,
  usage: { inputTokens: 0, outputTokens: 0 },
});

/** Connections whose servers list the given tools, without starting anything. */
function listing(tools: Record<string, string[]>): McpConnections {
  return {
    listTools: async (server: string) =>
      tools[server].map((name) => ({ name, description: name, inputSchema: { type: 'object' } })),
    redact: (text: string) => text,
  } as unknown as McpConnections;
}

async function listFailure(providers: ReturnType<typeof defineProvider>[], server: string, tool: string): Promise<string> {
  const registry = createAgentRegistry({ providers, mcpServers: { [server]: { command: 'unused' } } });
  const listMcpTools = createListMcpTools(registry, listing({ [server]: [tool] }), new McpCatalog());
  // A failed attempt is logged as a warning: the test reads its message instead.
  const environment = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  return environment.run(listMcpTools, { servers: [server], references: { default: ['mcp:*'] } }).then(
    () => 'listed',
    (error: Error) => error.message,
  );
}

it("refuses an MCP tool that would take Anthropic's structured-output tool name (final_output)", async () => {
  expect(await listFailure([], 'final', 'output')).toContain(
    'would be named final_output, which is reserved for structured output',
  );
});

it("refuses an MCP tool that would take a name a provider of the user's own reserves", async () => {
  const searching = defineProvider({
    name: 'searching',
    call: echo,
    reservedToolNames: { web_search: "the provider's own web search" },
  });
  expect(await listFailure([searching], 'web', 'search')).toContain(
    "would be named web_search, which is reserved for the provider's own web search",
  );
  // Without that provider, the name is free.
  expect(await listFailure([], 'web', 'search')).toBe('listed');
});
