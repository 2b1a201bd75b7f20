import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@temporalio/client';
import type { AgentRegistry } from '../../agents/registry';
import type { AgentInput } from '../../core/resolve-input';
import { packageRoot } from '../../install/package-root';
import { callAgent, type CallContext } from './agent-call';
import { agentTools, hasObjectOutput, resultToolName } from './agent-tools';
import { readRun } from './read-run';

export interface AgentMcpServerOptions {
  client: Client;
  taskQueue: string;
  registry: AgentRegistry;
  /** The agents offered as tools, by name. */
  agents: readonly string[];
  /** What a call of agent `name` runs, but its prompt: the agent and the settings `agent mcp` was started with. */
  inputFor(name: string): Omit<AgentInput, 'prompt'>;
  /** How long a person may take to answer an approval question (the runs' approval timeout). */
  approvalTimeoutMs: number;
  /** The operator's log (stderr): never the protocol's channel. */
  log(line: string): void;
}

const instructions =
  'Each tool is an agent: calling it starts a durable run (on Temporal) that survives this connection, and returns ' +
  `its answer. If a call is lost, ${resultToolName} with the run's id (named in the first progress notification and ` +
  'in the result\'s _meta "durable-agent/run") returns the answer once the run has one.';

/**
 * The MCP server of one connection (one client), for `principal`: the agent tools and agent_result (agent-tools.ts).
 * The low-level Server of @modelcontextprotocol/sdk, since the tools' schemas are JSON Schema already (the agents'
 * outputSchema as the registry gives it to models); the SDK validates each call's arguments against nothing, so they
 * are checked here.
 */
export function createAgentMcpServer(options: AgentMcpServerOptions, principal: string): Server {
  const tools = agentTools(options.registry, options.agents);
  const server = new Server({ name: 'durable-agent', version: packageVersion() }, { capabilities: { tools: {} }, instructions });
  const context: CallContext = { server, client: options.client, taskQueue: options.taskQueue, principal, log: options.log };
  const structured = (agent: string) =>
    options.registry.agents.has(agent) && hasObjectOutput(options.registry.spec(agent).outputSchema);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    if (name === resultToolName) return readRun(context, stringArgument(args, 'runId', name), structured, extra);
    if (!options.agents.includes(name)) throw new McpError(ErrorCode.InvalidParams, `unknown tool "${name}"`);
    const prompt = stringArgument(args, 'prompt', name);
    return callAgent(
      context,
      { ...options.inputFor(name), prompt },
      { structured: structured(name), approvalTimeoutMs: options.approvalTimeoutMs },
      extra,
    );
  });
  return server;
}

function stringArgument(args: Record<string, unknown>, field: string, tool: string): string {
  const value = args[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new McpError(ErrorCode.InvalidParams, `${tool} takes {"${field}": "<text>"}: "${field}" must be a non-empty string`);
  }
  const unknown = Object.keys(args).filter((key) => key !== field);
  if (unknown.length > 0) throw new McpError(ErrorCode.InvalidParams, `${tool} takes only "${field}", not ${unknown.join(', ')}`);
  return value;
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
