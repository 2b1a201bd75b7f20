import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@temporalio/client';
import type { AgentRegistry } from '../../agents/registry';
import type { AgentInput } from '../../core/resolve-input';
import { packageRoot } from '../../install/package-root';
import { callAgent, type CallContext } from './agent-call';
import { runTask, runTaskStore } from './run-tasks';
import { acceptsFiles, agentTools, hasObjectOutput, resultToolName } from './agent-tools';
import { CallFilesRefused, storeCallFiles } from './call-files';
import type { AttachmentStore } from '../../storage/attachment-store';
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
  /** Where the files sent with calls are stored (default: the stores of the environment, beside the payloads). */
  attachments?: AttachmentStore;
}

export const instructions =
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
  const structured = (agent: string) =>
    options.registry.agents.has(agent) && hasObjectOutput(options.registry.spec(agent).outputSchema);
  const closed = new AbortController();
  // The context's server is set right below: the task store needs the context, the server the store.
  const context: CallContext = {
    server: undefined as unknown as Server,
    client: options.client,
    taskQueue: options.taskQueue,
    principal,
    closed: closed.signal,
    log: options.log,
  };
  const server = new Server(
    { name: 'durable-agent', version: packageVersion() },
    {
      capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } }, cancel: {} } },
      instructions,
      taskStore: runTaskStore(context, structured),
    },
  );
  context.server = server;
  server.onclose = () => closed.abort();

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    if (name === resultToolName) {
      const gone = () => server.transport === undefined;
      return readRun(context, stringArgument(args, 'runId', name), structured, extra.signal, gone);
    }
    if (!options.agents.includes(name)) throw new McpError(ErrorCode.InvalidParams, `unknown tool "${name}"`);
    const files = acceptsFiles(options.registry, name);
    const prompt = stringArgument(args, 'prompt', name, files ? ['files'] : []);
    const called = await withCallFiles(options, name, { ...options.inputFor(name), prompt }, args.files);
    if ('refused' in called) return called.refused;
    const { input } = called;
    const callOptions = { structured: structured(name), approvalTimeoutMs: options.approvalTimeoutMs };
    if (!request.params.task) return callAgent(context, input, callOptions, extra);
    // Called as a task: answered with the task (the run) at once; the run is followed for progress and approvals
    // while this connection lasts, and its result is read from Temporal by tasks/result (run-tasks.ts).
    let started!: (workflowId: string) => void;
    const workflowId = new Promise<string>((resolve) => (started = resolve));
    const following = callAgent(context, input, callOptions, { ...extra, signal: closed.signal }, started);
    following.catch((error: Error) => options.log(`agent mcp: a task of ${name} failed: ${error.message}`));
    return { task: await runTask(context, await Promise.race([workflowId, following.then(() => workflowId)])) };
  });
  return server;
}

export function stringArgument(
  args: Record<string, unknown>,
  field: string,
  tool: string,
  /** The other arguments the tool takes (an agent's `files`), checked by their own readers. */
  others: readonly string[] = [],
): string {
  const value = args[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new McpError(ErrorCode.InvalidParams, `${tool} takes {"${field}": "<text>"}: "${field}" must be a non-empty string`);
  }
  const taken = [field, ...others];
  const unknown = Object.keys(args).filter((key) => !taken.includes(key));
  if (unknown.length > 0) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `${tool} takes only ${taken.map((key) => `"${key}"`).join(', ')}, not ${unknown.join(', ')}`,
    );
  }
  return value;
}

/**
 * The call's input with its files stored and their references in it (call-files.ts), or the tool error result that
 * refuses them: the reason, and no run started.
 */
export async function withCallFiles(
  options: AgentMcpServerOptions,
  name: string,
  input: AgentInput & { prompt: string },
  files: unknown,
): Promise<{ input: AgentInput & { prompt: string } } | { refused: CallToolResult }> {
  if (files === undefined) return { input };
  try {
    const attachments = await storeCallFiles(files, input, options.registry, options.attachments);
    return { input: attachments.length > 0 ? { ...input, attachments } : input };
  } catch (error) {
    if (!(error instanceof CallFilesRefused)) throw error;
    options.log(`agent mcp: refused the files of a call of ${name}: ${error.message}`);
    return { refused: { content: [{ type: 'text', text: `[files refused, no run started: ${error.message}]` }], isError: true } };
  }
}

export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
