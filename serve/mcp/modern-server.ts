import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { acceptsFiles, agentTools, hasObjectOutput, resultToolName } from './agent-tools';
import { instructions, packageVersion, stringArgument, withCallFiles, type AgentMcpServerOptions } from './agent-server';
import { approvalStateCodec } from './input-required';
import { callAgentModern, type ModernContext } from './modern-call';
import { registerTaskMethods, tasksExtension } from './modern-tasks';
import { readRun } from './read-run';

/**
 * The MCP server for clients of the 2026-07-28 revision, for `principal`: the low-level Server of the official
 * `@modelcontextprotocol/server` 2.x, which owns that revision's wire (the per-request `_meta` envelope,
 * `server/discover`, `resultType`, the requestState hook). The same tools as the 2025-11-25 server (agent-server.ts,
 * on `@modelcontextprotocol/sdk` 1.x, which stays for those clients: 2.x does not serve the 2025 revision's tasks),
 * in the same order; approvals are `input_required` (modern-call.ts) and tasks the extension's (modern-tasks.ts).
 * `gone` says whether the client had gone away when a call's signal aborted.
 */
export function createModernAgentMcpServer(options: AgentMcpServerOptions, principal: string, gone: () => boolean): Server {
  // The 2025 revision's per-tool task support has no place here: tasks are the extension's, declared per request.
  const tools = agentTools(options.registry, options.agents).map(({ execution: _execution, ...tool }) => tool);
  const structured = (agent: string) =>
    options.registry.agents.has(agent) && hasObjectOutput(options.registry.spec(agent).outputSchema);
  const codec = approvalStateCodec(principal, options.approvalTimeoutMs);
  const context: ModernContext = {
    client: options.client,
    taskQueue: options.taskQueue,
    principal,
    log: options.log,
    approvalTimeoutMs: options.approvalTimeoutMs,
    codec,
    gone,
  };
  const server = new Server(
    { name: 'durable-agent', version: packageVersion() },
    {
      capabilities: { tools: {}, extensions: { [tasksExtension]: {} } },
      instructions,
      requestState: { verify: (state, ctx) => codec.verify(state, ctx) },
    },
  );
  // The tools and results are the 1.x SDK's types (agent-tools.ts, call-result.ts), and a task answer is the
  // extension's: the same JSON, which 2.x's handler types do not name, hence the casts.
  server.setRequestHandler('tools/list', () => ({ tools }) as never);
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    // The argument checks of the 2025 server, their errors said as this revision's invalid params.
    const others = name !== resultToolName && acceptsFiles(options.registry, name) ? ['files'] : [];
    const argument = (field: string): string => {
      try {
        return stringArgument(args, field, name, others);
      } catch (error) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, (error as Error).message.replace(/^MCP error -?\d+: /, ''));
      }
    };
    if (name === resultToolName) return readRun(context, argument('runId'), structured, ctx.mcpReq.signal, gone) as never;
    if (!options.agents.includes(name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool "${name}"`);
    const prompt = argument('prompt');
    const called = await withCallFiles(options, name, { ...options.inputFor(name), prompt }, args.files);
    if ('refused' in called) return called.refused as never;
    return callAgentModern(context, name, called.input, structured(name), ctx) as never;
  });
  registerTaskMethods(server, context, structured);
  return server;
}
