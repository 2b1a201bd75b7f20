/**
 * MCP tools as a run sees them: plain data, recorded in history when a run
 * lists its MCP servers' tools (listMcpTools), so replay never needs a server.
 * The servers themselves, the connections and the naming rule live on the
 * worker (mcp/).
 */

/** In a tools list, `mcp:*` stands for every tool of every MCP server the worker has, `mcp:<server>` for one server's. */
export const mcpSelectorPrefix = 'mcp:';
export const everyMcpTool = 'mcp:*';

/** Where an MCP tool comes from: the server (its name in the config) and the tool's own name there. */
export interface McpToolOrigin {
  server: string;
  tool: string;
}

/** An MCP tool as a run offers it to the model: its origin, and its description and JSON Schema as the server listed them. */
export interface McpToolEntry extends McpToolOrigin {
  description: string;
  parameters: Record<string, unknown>;
}

/** The MCP tools of one run, by the name the model sees (`<server>_<tool>`). */
export interface McpListing {
  /** A digest of `tools`: model calls name the listing by it instead of carrying every schema again. */
  id: string;
  tools: Record<string, McpToolEntry>;
  /** Servers that could not be listed, and why: only `mcp:*` leaves a server out; a run that names one fails. */
  unavailable: Record<string, string>;
}

/** What a run asks of its MCP servers once it is prepared: the servers to list, and each agent's MCP tool references. */
export interface McpToolRequest {
  servers: string[];
  /** Per agent: `mcp:*`, `mcp:<server>` or tool names (`github_create_issue`), as its definition or the run named them. */
  references: Record<string, string[]>;
  /** Per agent, the same kinds of references for the tools whose calls wait for a person's approval (its own and the run's). */
  approvals?: Record<string, string[]>;
}

/** How a model call names the run's MCP listing: by id, with the tools themselves only when the worker lacked them. */
export interface McpListingReference {
  id: string;
  tools?: McpListing['tools'];
}
