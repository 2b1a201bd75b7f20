import { createHash } from 'node:crypto';
import { everyMcpTool, mcpSelectorPrefix } from './types';

/** Both OpenAI and Anthropic refuse tool names outside this pattern; Temporal uses the name as the activity type. */
export const maxToolNameLength = 64;
const digestLength = 8;

/** Every character a tool name may not hold becomes `_`. */
export function sanitizeToolName(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** What every tool of a server starts with: its config name, sanitized, and `_`. */
export function mcpServerPrefix(server: string): string {
  return `${sanitizeToolName(server)}_`;
}

/**
 * The name the model sees for a server's tool: `<server>_<tool>`, sanitized.
 * A name over 64 characters is cut to 55 and ends with `_` and 8 hex digits of
 * a digest of the server and tool names, so it is the same on every worker and
 * two long names that share a beginning still differ.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${mcpServerPrefix(server)}${sanitizeToolName(tool)}`;
  if (name.length <= maxToolNameLength) return name;
  const digest = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, digestLength);
  return `${name.slice(0, maxToolNameLength - digestLength - 1)}_${digest}`;
}

/** What a name in a tools list refers to among the worker's MCP servers, if anything. */
export type McpReference =
  | { kind: 'every' }
  | { kind: 'server'; server: string }
  /** A tool name: which server has it is known once the servers are listed; these are the servers whose prefix it has. */
  | { kind: 'tool'; servers: string[] };

/** Reads `mcp:*`, `mcp:<server>` or `<server>_<tool>` against the configured servers; undefined when the name is none of them. */
export function mcpReference(name: string, servers: string[]): McpReference | undefined {
  if (name === everyMcpTool) return { kind: 'every' };
  if (name.startsWith(mcpSelectorPrefix)) {
    const server = name.slice(mcpSelectorPrefix.length);
    return servers.includes(server) ? { kind: 'server', server } : undefined;
  }
  const candidates = servers.filter(
    (server) => name.startsWith(mcpServerPrefix(server)) && name.length > mcpServerPrefix(server).length,
  );
  return candidates.length > 0 ? { kind: 'tool', servers: candidates } : undefined;
}
