import { createHash } from 'node:crypto';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError } from '../core/errors';
import type { McpListing, McpToolEntry } from './types';
import { mcpToolName } from './names';

/** What a server listed, or why it could not be listed. */
export type ServerListing = { tools: McpTool[] } | { unavailable: string };

/**
 * The run's MCP tools from what each server listed, named `<server>_<tool>`
 * (mcpToolName), in the order of the config and of each server's list. Two
 * tools that get the same name, or a name the worker already uses for a tool
 * or an agent (`reservedBy`), are refused: the model could not tell them apart.
 */
export function buildListing(
  listed: Record<string, ServerListing>,
  reservedBy: (name: string) => string | undefined,
): McpListing {
  const tools: Record<string, McpToolEntry> = {};
  const unavailable: Record<string, string> = {};
  for (const [server, outcome] of Object.entries(listed)) {
    if ('unavailable' in outcome) {
      unavailable[server] = outcome.unavailable;
      continue;
    }
    for (const tool of outcome.tools) {
      const name = mcpToolName(server, tool.name);
      const earlier = tools[name];
      if (earlier) {
        throw new ConfigurationError(
          `the MCP tools "${earlier.tool}" of server "${earlier.server}" and "${tool.name}" of server "${server}" would both be named ${name}; ` +
            'rename one of the servers in the MCP config',
        );
      }
      const owner = reservedBy(name);
      if (owner)
        throw new ConfigurationError(
          `the MCP tool "${tool.name}" of server "${server}" would be named ${name}, which is ${owner}; rename the server in the MCP config`,
        );
      tools[name] = { server, tool: tool.name, description: describeTool(server, tool), parameters: parametersOf(tool) };
    }
  }
  return { id: listingId(tools), tools, unavailable };
}

/** The digest model calls name a listing by; a worker sent the tools checks them against it. */
export function listingId(tools: McpListing['tools']): string {
  return createHash('sha256').update(JSON.stringify(tools)).digest('hex');
}

function describeTool(server: string, tool: McpTool): string {
  const own = tool.description?.trim() || tool.title?.trim() || tool.annotations?.title?.trim();
  return own || `The tool "${tool.name}" of the MCP server "${server}".`;
}

/** The tool's input schema as the model is offered it; `$schema` is metadata neither API needs. */
function parametersOf(tool: McpTool): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = tool.inputSchema as Record<string, unknown>;
  return { ...schema, type: 'object' };
}
