import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentRegistry } from '../../agents/registry';
import { ConfigurationError } from '../../core/errors';
import { filesProperty } from './call-files';

/** The tool that returns a run's answer by its id: for a client whose call was lost (it went away, it timed out). */
export const resultToolName = 'agent_result';

/** Where a tool result names the run it came from (`_meta`), for a client that wants it again later. */
export const runMetaKey = 'durable-agent/run';

/** What every agent tool takes: the task. Agents have no structured input of their own (agents/define-agent.ts). */
const promptInput: McpTool['inputSchema'] = {
  type: 'object',
  properties: {
    prompt: { type: 'string', minLength: 1, description: 'The task for this agent, with everything it needs to know to do it' },
  },
  required: ['prompt'],
  additionalProperties: false,
};

/** The input of an agent that takes files with its task (defineAgent's `acceptsAttachments`): the prompt and `files`. */
const promptAndFilesInput: McpTool['inputSchema'] = {
  ...promptInput,
  properties: { ...promptInput.properties, files: filesProperty },
};

/** Whether callers may send agent `name` files with the task (defineAgent's `acceptsAttachments`). */
export function acceptsFiles(registry: AgentRegistry, name: string): boolean {
  return registry.agents.get(name)?.acceptsAttachments === true;
}

const resultInput: McpTool['inputSchema'] = {
  type: 'object',
  properties: {
    runId: {
      type: 'string',
      minLength: 1,
      description: `The run's id, as an agent tool's progress or result named it (_meta "${runMetaKey}")`,
    },
  },
  required: ['runId'],
  additionalProperties: false,
};

/**
 * The MCP tools `agent mcp` offers: one per served agent, under the agent's own name (agent names are valid tool
 * names: agents/define-agent.ts), with its description, the prompt as input, and its outputSchema's JSON Schema as
 * the tool's outputSchema when it has one; and `agent_result`. An agent named like that tool is a configuration
 * mistake, refused when the server is made.
 */
export function agentTools(registry: AgentRegistry, served: readonly string[]): McpTool[] {
  if (served.includes(resultToolName)) {
    throw new ConfigurationError(
      `an agent is named "${resultToolName}", the name agent mcp gives the tool that reads a run's answer`,
    );
  }
  const tools: McpTool[] = served.map((name) => {
    const spec = registry.spec(name);
    return {
      name,
      description: spec.description,
      inputSchema: acceptsFiles(registry, name) ? promptAndFilesInput : promptInput,
      ...(hasObjectOutput(spec.outputSchema) && { outputSchema: spec.outputSchema as McpTool['outputSchema'] }),
      annotations: agentAnnotations(registry, name),
      // A call may be made as an MCP task (run-tasks.ts): the task is the run.
      execution: { taskSupport: 'optional' },
    };
  });
  tools.push({
    name: resultToolName,
    description:
      "The answer of a run an agent tool started, by the run's id: waits for it if it is still working. For a call " +
      'whose answer was lost (the client went away or timed out): the run goes on without it.',
    inputSchema: resultInput,
    annotations: { title: 'agent run result', readOnlyHint: true, idempotentHint: true },
  });
  return tools;
}

/**
 * What a call of agent `name` can do, from every tool it can reach (its own, and its subagents' and handoffs'): read
 * only when each is a registered tool that says it only reads (defineTool's `readOnly`), and then not destructive;
 * an open world when any is an MCP server's (another process, anywhere). Never idempotent: each call is a new run.
 */
export function agentAnnotations(registry: AgentRegistry, name: string): NonNullable<McpTool['annotations']> {
  const tools = Object.values(registry.reachable(name)).flatMap((spec) => spec.tools);
  const readOnly = tools.every((tool) => registry.tools.get(tool)?.readOnly === true);
  const openWorld = tools.some((tool) => !registry.tools.has(tool));
  return {
    title: `agent ${name}`,
    readOnlyHint: readOnly,
    destructiveHint: !readOnly,
    idempotentHint: false,
    openWorldHint: openWorld,
  };
}

/**
 * Whether an agent's output is an object, which MCP's structuredContent must be: an agent whose outputSchema is an
 * array or a string declares none, and its output is the answer's JSON text.
 */
export function hasObjectOutput(schema: Record<string, unknown> | undefined): boolean {
  return schema?.type === 'object';
}
