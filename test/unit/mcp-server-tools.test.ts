import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client, Connection } from '@temporalio/client';
import { z } from 'zod';
import { defineAgent } from '../../agents/define-agent';
import { createAgentRegistry } from '../../agents/registry';
import { ConfigurationError } from '../../core/errors';
import type { AgentResult } from '../../core/result';
import { createAgentMcpServer } from '../../serve/mcp/agent-server';
import { agentTools, runMetaKey } from '../../serve/mcp/agent-tools';
import { runToolResult } from '../../serve/mcp/call-result';
import { progressMessage } from '../../serve/mcp/progress';
import { isLegacyOpening } from '../../serve/mcp/stdio-endpoint';

// What `agent mcp` offers and answers, from plain objects: the tools of a registry, and a run's result as a tool result.

const usage = { inputTokens: 1, outputTokens: 1 };
const result = (fields: Partial<AgentResult>): AgentResult => ({
  answer: 'The answer.',
  status: 'completed',
  iterations: 1,
  usage,
  turns: 1,
  agent: 'helper',
  ...fields,
});

const listed = defineAgent({
  name: 'lister',
  description: 'Lists things.',
  model: 'openai:gpt-4o-mini',
  outputSchema: z.array(z.string()),
});
const located = defineAgent({
  name: 'locator',
  description: 'Finds a place.',
  model: 'openai:gpt-4o-mini',
  outputSchema: z.object({ city: z.string() }),
});

it('declares an outputSchema only for agents whose output is an object, as structuredContent must be', () => {
  const tools = agentTools(createAgentRegistry({ agents: [listed, located] }), ['lister', 'locator']);
  expect(tools.map((tool) => tool.name)).toEqual(['lister', 'locator', 'agent_result']);
  expect(tools[0].outputSchema).toBeUndefined();
  expect(tools[1].outputSchema).toMatchObject({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
});

it('refuses an agent named like the tool that reads results', () => {
  const clash = defineAgent({ name: 'agent_result', description: 'Clashes.', model: 'openai:gpt-4o-mini' });
  expect(() => agentTools(createAgentRegistry({ agents: [clash] }), ['agent_result'])).toThrow(ConfigurationError);
});

it("keeps the model's answer one text item and says the run's own facts apart from it", () => {
  const answer = 'Fine.\n{"jsonrpc":"2.0","id":1,"result":{"content":[]}}';
  expect(runToolResult('agent-1', result({ answer, output: { city: 'Paris' } }), true)).toEqual({
    content: [{ type: 'text', text: answer }],
    structuredContent: { city: 'Paris' },
    _meta: { [runMetaKey]: { workflowId: 'agent-1', status: 'completed', agent: 'helper' } },
  });
  // A run that did not complete has no structured output to give: an error result that says how it ended.
  expect(runToolResult('agent-2', result({ status: 'max_iterations' }), true)).toEqual({
    content: [
      { type: 'text', text: 'The answer.' },
      { type: 'text', text: '[the run agent-2 ended with status max_iterations]' },
    ],
    isError: true,
    _meta: { [runMetaKey]: { workflowId: 'agent-2', status: 'max_iterations', agent: 'helper' } },
  });
  // An output that is no object is only the answer's text.
  expect(runToolResult('agent-3', result({ output: ['a'] }), true)).not.toHaveProperty('structuredContent');
});

it('tells the story of a run in progress lines, and nothing of its streamed text', () => {
  expect(progressMessage({ type: 'reply', call: 'm1', text: '', toolCalls: ['read_file'], iteration: 2 })).toBe(
    'model answered (iteration 2): calling read_file',
  );
  expect(progressMessage({ type: 'text', call: 'm1', text: 'partial' })).toBeUndefined();
  expect(progressMessage({ type: 'turn_end', turn: 1, status: 'completed', answer: 'x' })).toBe('turn 1 ended: completed');
});

it("annotates each agent tool with what its tools can do, as the SDK's Client lists them", async () => {
  const reader = defineAgent({
    name: 'reader',
    description: 'Reads.',
    model: 'openai:gpt-4o-mini',
    tools: ['read_file', 'list_directory'],
  });
  const writer = defineAgent({
    name: 'writer',
    description: 'Writes.',
    model: 'openai:gpt-4o-mini',
    tools: ['read_file', 'write_file'],
  });
  // Its own tools only read, but the agent it hands over to writes.
  const manager = defineAgent({
    name: 'manager',
    description: 'Hands over.',
    model: 'openai:gpt-4o-mini',
    tools: ['read_file'],
    handoffs: [writer],
  });
  const remote = defineAgent({ name: 'remote', description: 'Asks a server.', model: 'openai:gpt-4o-mini', tools: ['mcp:docs'] });
  const registry = createAgentRegistry({
    agents: [reader, writer, manager, remote],
    mcpServers: { docs: { command: 'true' } },
  });
  const served = ['reader', 'writer', 'manager', 'remote'];
  const server = createAgentMcpServer(
    {
      // listTools asks nothing of Temporal: a client of an address nothing serves.
      client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
      taskQueue: 'none',
      registry,
      agents: served,
      inputFor: () => ({ workspace: '/tmp' }),
      approvalTimeoutMs: 1000,
      log: () => undefined,
    },
    'local',
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new McpClient({ name: 'annotations', version: '1.0.0' });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  const hints = Object.fromEntries(tools.map(({ name, annotations }) => [name, annotations]));
  expect(hints.reader).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false });
  expect(hints.writer).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
  expect(hints.manager).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  expect(hints.remote).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  expect(hints.agent_result).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  await client.close();
});

it("routes a stdio connection by its first message: the 2026-07-28 _meta claim is the new revision's, all else the old", () => {
  const claim = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } };
  const opening = (method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0' as const, id: 1, method, params });
  expect(isLegacyOpening(opening('initialize', { protocolVersion: '2025-11-25', capabilities: {} }))).toBe(true);
  // A tools/call with no handshake and no claim is 2025 traffic: the 2025 server serves it, as before.
  expect(isLegacyOpening(opening('tools/call', { name: 'helper', arguments: { prompt: 'x' } }))).toBe(true);
  expect(isLegacyOpening(opening('server/discover', claim))).toBe(false);
  expect(isLegacyOpening(opening('tools/call', { name: 'helper', arguments: { prompt: 'x' }, ...claim }))).toBe(false);
  expect(isLegacyOpening(opening('initialize', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } }))).toBe(
    true,
  );
});
