import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { AgentRegistry } from '../../agents/registry';
import { handoffToolPrefix } from '../../core/tool-names';
import { didYouMean } from '../../core/did-you-mean';
import { ConfigurationError, failureTypes } from '../../core/errors';
import type { McpListing, McpToolRequest } from '../../mcp/types';
import type { McpConnections } from '../../mcp/connections';
import { buildListing, type ServerListing } from '../../mcp/listing';
import { mcpReference } from '../../mcp/names';
import { heartbeating } from '../heartbeating';
import type { ToolRunSettings } from '../prepare-run';
import type { McpCatalog } from '../../mcp/catalog';

/** What listMcpTools records: the listing, each agent's MCP tools by the names the model sees, and how to schedule each. */
export interface McpToolsListed {
  listing: McpListing;
  toolsByAgent: Record<string, string[]>;
  /** Per agent, the MCP tools whose calls wait for a person's approval, by the names the model sees. */
  approvalsByAgent?: Record<string, string[]>;
  tools: Record<string, ToolRunSettings>;
}

// Like a tool of defineTool's defaults: a server that went away mid-call gets two more tries, on a fresh connection.
const mcpToolSettings = { timeout: '60s', maximumAttempts: 3, initialRetryInterval: '1s' } as const;

/**
 * Lists the tools of the servers a run needs, once at its start: the result,
 * in history, is what the run offers the model for its whole life, and replay
 * reads it from there. A server the run names (`mcp:<server>`, or one of its
 * tools) that cannot be listed fails the attempt, and Temporal retries it; one
 * only `mcp:*` reaches is left out, and the listing says why. A name that no
 * listed server has fails the run, naming what the server does have.
 */
export function createListMcpTools(registry: AgentRegistry, connections: McpConnections, catalog: McpCatalog) {
  return async function listMcpTools(request: McpToolRequest): Promise<McpToolsListed> {
    try {
      return await heartbeating(async (context) => {
        const listed: Record<string, ServerListing> = {};
        await Promise.all(
          request.servers.map(async (server) => {
            listed[server] = await connections
              .listTools(server, { signal: context.cancellationSignal })
              .then((tools) => ({ tools }))
              // Recorded in history: redacted, whatever threw it.
              .catch((error: Error) => ({ unavailable: connections.redact(error.message) }));
          }),
        );
        // Object.entries keeps the order the servers were asked in (the config's), not the order they answered in.
        const ordered = Object.fromEntries(request.servers.map((server) => [server, listed[server]]));
        const listing = buildListing(ordered, (name) => reservedBy(registry, name));
        const toolsByAgent = Object.fromEntries(
          Object.entries(request.references).map(([agent, references]) => [
            agent,
            resolveMcpReferences(references, listing, registry, { purpose: 'tools' }),
          ]),
        );
        // The same expansion as the tools, at the same point: `mcp:*` and `mcp:<server>` stand for the same names in both.
        const approvals = Object.entries(request.approvals ?? {}).map(([agent, references]) => [
          agent,
          resolveMcpReferences(references, listing, registry, { purpose: 'approvals', listed: request.servers }),
        ]);
        catalog.remember(listing.id, listing.tools);
        const tools = Object.fromEntries(
          Object.entries(listing.tools).map(([name, entry]) => [
            name,
            { ...mcpToolSettings, mcp: { server: entry.server, tool: entry.tool } },
          ]),
        );
        return { listing, toolsByAgent, ...(approvals.length > 0 && { approvalsByAgent: Object.fromEntries(approvals) }), tools };
      });
    } catch (error) {
      if (error instanceof CancelledFailure || error instanceof ApplicationFailure) throw error;
      const message = connections.redact(error instanceof Error ? error.message : String(error));
      if (error instanceof ConfigurationError)
        throw ApplicationFailure.create({ type: failureTypes.configuration, message, nonRetryable: true });
      throw ApplicationFailure.create({ type: error instanceof Error ? error.name : 'Error', message, nonRetryable: false });
    }
  };
}

/**
 * What a tools list or an approval list means for the listed servers.
 * `tools`: a server the list names that could not be listed fails the run.
 * `approvals`: such a server's tools are not offered, so there is nothing to
 * approve; nor is there for a server the run did not list at all (`listed`).
 */
export type ResolvePurpose = { purpose: 'tools' } | { purpose: 'approvals'; listed: string[] };

/**
 * The names the model sees for one agent's MCP references (`mcp:*`,
 * `mcp:<server>`, `<server>_<tool>`), in the order given, each once: the one
 * expansion of MCP selectors, for the tools an agent is offered and for the
 * tools whose calls wait for approval. A tool name a listed server does not
 * have is refused, naming the tools it does have.
 */
export function resolveMcpReferences(
  references: string[],
  listing: McpListing,
  registry: AgentRegistry,
  purpose: ResolvePurpose,
): string[] {
  const names = new Set<string>();
  const byServer = (server: string) => Object.keys(listing.tools).filter((name) => listing.tools[name].server === server);
  const absent = (server: string) =>
    purpose.purpose === 'approvals' && (!purpose.listed.includes(server) || listing.unavailable[server] !== undefined);
  const needs = (server: string, why: string) => {
    const reason = listing.unavailable[server];
    if (reason !== undefined) {
      throw ApplicationFailure.create({
        type: failureTypes.mcpServerUnavailable,
        message: `${why}, and ${reason}`,
        nonRetryable: false,
      });
    }
  };
  const what = purpose.purpose === 'tools' ? 'the run names' : 'the run asks for approval of';
  for (const name of references) {
    const reference = registry.mcpReference(name) ?? mcpReference(name, Object.keys(registry.mcpServers));
    if (!reference)
      throw new ConfigurationError(
        `"${name}" is neither a registered tool nor an MCP tool of this worker (${registry.describeTools()})`,
      );
    switch (reference.kind) {
      case 'every':
        for (const tool of Object.keys(listing.tools)) names.add(tool);
        break;
      case 'server':
        if (absent(reference.server)) break;
        needs(reference.server, `${what} ${name}`);
        for (const tool of byServer(reference.server)) names.add(tool);
        break;
      case 'tool': {
        if (listing.tools[name]) {
          names.add(name);
          break;
        }
        if (reference.servers.every(absent)) break;
        for (const server of reference.servers) needs(server, `${what} the MCP tool ${name}`);
        const offered = reference.servers.flatMap(byServer);
        throw new ConfigurationError(
          `unknown MCP tool "${name}"${didYouMean(name, offered)}${purpose.purpose === 'approvals' ? ' among the tools that need approval' : ''}; ` +
            `${reference.servers.map((server) => `"${server}"`).join(' and ')} offer: ${offered.join(', ') || 'no tools'}`,
        );
      }
      default: {
        const exhaustive: never = reference;
        throw new Error(`unknown MCP reference ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return [...names];
}

/** Whose a tool name already is on this worker, if anyone's: a registered tool, an agent (as a subagent), a handoff, a provider's own tool (structured output). */
function reservedBy(registry: AgentRegistry, name: string): string | undefined {
  if (registry.tools.has(name)) return 'a registered tool';
  if (registry.agents.has(name)) return 'an agent (subagents are offered as tools named after them)';
  if (name.startsWith(handoffToolPrefix)) return `reserved for handoffs (${handoffToolPrefix}<agent>)`;
  const reserved = registry.reservedToolPurpose(name);
  if (reserved !== undefined) return `reserved for ${reserved}`;
  return undefined;
}
