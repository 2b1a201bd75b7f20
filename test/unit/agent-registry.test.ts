import { z } from 'zod';
import { defineAgent } from '../../agents/define-agent';
import { createAgentRegistry } from '../../agents/registry';
import { AgentPlugin } from '../../worker/agent-plugin';
import { defineProvider } from '../../providers';
import { defineTool } from '../../tools';
import { configurationProblem } from '../support/configuration-problem';

const tool = defineTool({
  name: 'lookup',
  description: 'Looks a key up',
  input: z.object({ key: z.string() }),
  handler: async () => 'v',
});
const base = { description: 'Does things.', model: 'openai:gpt-4o-mini' };

describe('defineAgent', () => {
  it('gives defaults for what it may leave out', () => {
    expect(defineAgent({ name: 'helper', ...base })).toMatchObject({
      name: 'helper',
      instructions: '',
      tools: [],
      subagents: [],
      handoffs: [],
      maxIterations: 20,
      modelSettings: {},
    });
  });

  it.each<[string, Parameters<typeof defineAgent>[0], string]>([
    ['a name that cannot be a tool name', { name: 'has space', ...base }, 'agent "has space": the name must match'],
    ['no description', { name: 'quiet', model: 'openai:x', description: ' ' }, 'agent "quiet": needs a description'],
    [
      'a model without a provider',
      { name: 'nomodel', ...base, model: 'gpt-4o' },
      'agent "nomodel": model must look like provider:model',
    ],
    [
      'a zero iteration limit',
      { name: 'lazy', ...base, maxIterations: 0 },
      'agent "lazy": maxIterations must be a positive whole number',
    ],
    [
      'two tools of one name',
      { name: 'twice', ...base, tools: ['lookup', tool] },
      'agent "twice": offers the model two tools named "lookup"',
    ],
    [
      'a temperature out of range',
      { name: 'hot', ...base, modelSettings: { temperature: 3 } },
      'agent "hot": modelSettings.temperature must be between 0 and 2',
    ],
    [
      "a thinking budget under Anthropic's minimum",
      { name: 'brief', ...base, modelSettings: { thinkingBudget: 500 } },
      'agent "brief": modelSettings.thinkingBudget: must be at least 1024 tokens',
    ],
    [
      'a reasoning effort that is not low, medium or high',
      { name: 'eager', ...base, modelSettings: { reasoningEffort: 'max' as never } },
      'agent "eager": modelSettings.reasoningEffort: must be one of low, medium, high',
    ],
    [
      'a temperature with thinking',
      { name: 'cool', ...base, model: 'anthropic:claude-sonnet-4-6', modelSettings: { thinkingBudget: 2048, temperature: 0.2 } },
      'agent "cool": modelSettings.temperature cannot be set (other than 1) together with thinkingBudget',
    ],
  ])('refuses %s, naming the agent', (_case, definition, message) => {
    expect(configurationProblem(() => defineAgent(definition))).toContain(message);
  });
});

describe('createAgentRegistry', () => {
  it('registers the agents given and those they reach by value, with their tools, beside the built-in ones', () => {
    const specialist = defineAgent({ name: 'specialist', ...base, tools: [tool] });
    const lead = defineAgent({ name: 'lead', ...base, subagents: [specialist] });
    const registry = createAgentRegistry({ agents: [lead] });
    expect([...registry.agents.keys()]).toEqual(['default', 'lead', 'specialist']);
    expect(registry.listedAgentNames()).toEqual(['default', 'lead', 'specialist']);
    expect(registry.tools.has('lookup')).toBe(true);
    expect(registry.tools.has('read_file')).toBe(true);
    expect([...registry.providers.keys()]).toEqual(['openai', 'openai-responses', 'anthropic']);
  });

  it("gets the evals' judge from the worker, which runs it by name and leaves it out of listings", () => {
    const lead = defineAgent({ name: 'lead', ...base });
    const registry = createAgentRegistry({ agents: [lead] });
    new AgentPlugin({ registry, env: {}, tracing: false });
    expect([...registry.agents.keys()]).toEqual(['default', 'lead', 'eval-judge']);
    expect(registry.listedAgentNames()).toEqual(['default', 'lead']);
    expect(registry.spec('eval-judge')).toMatchObject({ name: 'eval-judge', tools: [] });
    // A second worker on the same registry (the CLI's, say) adds nothing; an agent of the user's under the name is refused.
    new AgentPlugin({ registry, env: {}, tracing: false });
    expect(registry.agents.size).toBe(3);
    const impostor = defineAgent({ name: 'eval-judge', ...base });
    expect(configurationProblem(() => new AgentPlugin({ agents: [impostor], env: {}, tracing: false }))).toContain(
      'two different agents are named "eval-judge"',
    );
  });

  it('allows a handoff cycle, named on one side', () => {
    const back = defineAgent({ name: 'back', ...base, handoffs: ['forth'] });
    const forth = defineAgent({ name: 'forth', ...base, handoffs: [back] });
    const registry = createAgentRegistry({ agents: [forth] });
    expect(Object.keys(registry.reachable('back')).sort()).toEqual(['back', 'forth']);
  });

  it.each<[string, () => unknown, string]>([
    [
      'a missing handoff target',
      () => createAgentRegistry({ agents: [defineAgent({ name: 'lost', ...base, handoffs: ['nobody'] })] }),
      'agent "lost": handoff target "nobody" is not a registered agent',
    ],
    [
      'a missing subagent',
      () => createAgentRegistry({ agents: [defineAgent({ name: 'boss', ...base, subagents: ['ghost'] })] }),
      'agent "boss": subagent "ghost" is not a registered agent',
    ],
    [
      'an unknown tool',
      () => createAgentRegistry({ agents: [defineAgent({ name: 'tinker', ...base, tools: ['hammer'] })] }),
      'agent "tinker": unknown tool "hammer"',
    ],
    [
      'two agents of one name',
      () => createAgentRegistry({ agents: [defineAgent({ name: 'twin', ...base }), defineAgent({ name: 'twin', ...base })] }),
      'two different agents are named "twin"',
    ],
    [
      'an agent named like a built-in agent',
      () => createAgentRegistry({ agents: [defineAgent({ name: 'default', ...base })] }),
      'two different agents are named "default"',
    ],
    [
      'an agent named like a tool',
      () => createAgentRegistry({ agents: [defineAgent({ name: 'read_file', ...base })] }),
      'agent "read_file": a tool has the same name',
    ],
    [
      'a provider no one registered',
      () => createAgentRegistry({ agents: [defineAgent({ name: 'local', ...base, model: 'ollama:llama3' })] }),
      'agent "local": its model ollama:llama3 needs the provider "ollama", which is not registered',
    ],
    [
      'a tool that takes a handoff name',
      () => createAgentRegistry({ tools: [defineTool({ ...tool, name: 'transfer_to_x', activity: undefined })] }),
      'names starting with transfer_to_ are reserved',
    ],
  ])('refuses %s at start', (_case, action, message) => {
    expect(configurationProblem(action)).toContain(message);
  });

  it("accepts a provider of the user's own, and its agents", () => {
    const ollama = defineProvider({
      name: 'ollama',
      call: async () => ({
        message: { role: 'assistant', content: 'hi', toolCalls: [] },
        finishReason: 'stop',
        usage: { inputTokens: 0, outputTokens: 0 },
      }),
    });
    const registry = createAgentRegistry({
      providers: [ollama],
      agents: [defineAgent({ name: 'local', ...base, model: 'ollama:llama3' })],
    });
    expect(registry.providers.get('ollama')).toBe(ollama);
  });

  it('offers subagents as {task} tools and handoffs as transfer_to_<agent> tools', () => {
    const billing = defineAgent({ name: 'billing', ...base, description: 'Answers billing questions.' });
    const registry = createAgentRegistry({ agents: [billing] });
    expect(registry.toolDefinition('billing')).toEqual({
      name: 'billing',
      description: 'Answers billing questions.',
      parameters: expect.objectContaining({ required: ['task'] }),
    });
    expect(registry.toolDefinition('transfer_to_billing')).toMatchObject({
      name: 'transfer_to_billing',
      description: expect.stringContaining('Answers billing questions.'),
    });
  });

  it('records the outputSchema as JSON Schema in the agent spec', () => {
    const registry = createAgentRegistry({
      agents: [defineAgent({ name: 'typed', ...base, outputSchema: z.object({ city: z.string() }) })],
    });
    expect(registry.spec('typed').outputSchema).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } });
  });
});

describe('MCP tools in tools lists', () => {
  const mcpServers = { github: { command: 'github-mcp-server', args: ['stdio'] } };

  it("lets an agent name a server's tool, a whole server or every MCP tool, which runs list when they start", () => {
    const registry = createAgentRegistry({
      mcpServers,
      agents: [defineAgent({ name: 'triager', ...base, tools: ['github_create_issue', 'mcp:github', 'mcp:*'] })],
    });
    expect(registry.spec('triager').tools).toEqual(['github_create_issue', 'mcp:github', 'mcp:*']);
    expect(registry.knowsTool('github_list_issues')).toBe(true);
    expect(registry.mcpReference('github_list_issues')).toEqual({ kind: 'tool', servers: ['github'] });
  });

  it('gives the default agent every MCP tool of the worker', () => {
    expect(createAgentRegistry({ mcpServers }).spec('default').tools).toEqual([
      'read_file',
      'write_file',
      'list_directory',
      'search_files',
      'mcp:*',
    ]);
  });

  it('refuses a server it does not have, and server-like names when it has no such server, saying what it has', () => {
    const unknownServer = configurationProblem(() =>
      createAgentRegistry({ mcpServers, agents: [defineAgent({ name: 'a', ...base, tools: ['mcp:gitlab'] })] }),
    );
    expect(unknownServer).toBe(
      'agent "a": unknown tool "mcp:gitlab" (registered tools: read_file, write_file, list_directory, search_files; ' +
        'MCP servers: github (tools named <server>_<tool>, or mcp:<server>, mcp:*))',
    );
    const noServers = configurationProblem(() =>
      createAgentRegistry({ agents: [defineAgent({ name: 'a', ...base, tools: ['github_create_issue'] })] }),
    );
    expect(noServers).toBe(
      'agent "a": unknown tool "github_create_issue" (registered tools: read_file, write_file, list_directory, search_files)',
    );
  });

  it('refuses an MCP config it cannot use when the registry is made', () => {
    expect(configurationProblem(() => createAgentRegistry({ mcpServers: { broken: { args: ['x'] } } }))).toMatch(
      /^MCP server "broken": needs "command"/,
    );
  });
});
