import { parseArgs } from 'node:util';
import { McpConnections } from '../../mcp/connections';
import { mcpServerAddress } from '../../mcp/redact';
import { mcpToolName } from '../../mcp/names';
import { cliRegistry } from '../registry';
import { UsageError } from '../help';
import type { Output } from '../output';

interface McpServerTools {
  name: string;
  transport: 'stdio' | 'http';
  /** The URL (no userinfo, no query) or the command, with every `${VAR}` value of the config redacted. */
  address: string;
  /** Each tool as the model sees it (`name`) and as the server calls it (`tool`). */
  tools?: Array<{ name: string; tool: string; description: string }>;
  error?: string;
}

/**
 * `agent tools`: the registered tools, and the tools of each MCP server in
 * AGENT_MCP_CONFIG under the names the model sees, for tools lists and agent
 * definitions. It starts (and stops) each stdio server to list it. Exit code 1
 * when a server could not be listed.
 */
export async function toolsCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  if (positionals.length > 0) throw new UsageError('tools takes no arguments');
  const registry = cliRegistry();
  const tools = [...registry.tools.values()].map((tool) => ({ name: tool.name, description: tool.description }));
  const connections = new McpConnections(registry.mcpServers);
  let servers: McpServerTools[];
  try {
    servers = await Promise.all(
      Object.entries(registry.mcpServers).map(async ([name, config]): Promise<McpServerTools> => {
        const server = { name, transport: config.transport, address: mcpServerAddress(config) };
        try {
          const listed = await connections.listTools(name);
          const description = (tool: (typeof listed)[number]) => tool.description?.trim().split('\n')[0] ?? '';
          return {
            ...server,
            tools: listed.map((tool) => ({
              name: mcpToolName(name, tool.name),
              tool: tool.name,
              description: description(tool),
            })),
          };
        } catch (error) {
          return { ...server, error: connections.redact((error as Error).message) };
        }
      }),
    );
  } finally {
    await connections.close();
  }
  if (values.json) {
    output.result(JSON.stringify({ tools, mcpServers: servers }));
  } else {
    output.result(tools.map((tool) => `${tool.name}  ${tool.description}`).join('\n'));
    for (const server of servers) {
      output.result(`\nMCP server ${server.name} (${server.transport} ${server.address}; all its tools: mcp:${server.name})`);
      if (server.error) output.result(`  unavailable: ${server.error}`);
      for (const tool of server.tools ?? []) output.result(`  ${tool.name}  ${tool.description}`);
    }
  }
  return servers.some((server) => server.error) ? 1 : 0;
}
