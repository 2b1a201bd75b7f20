import { spawn } from 'node:child_process';
import path from 'node:path';
import { collect, lastJsonLine, runCli } from '../support/cli';
import { anthropicReply, openaiReply, type FakeStep } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { agentOf, scriptByAgent as scriptAgents } from '../support/script-by-agent';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

// Agents defined in a module of the user's (AGENT_DEFINITIONS, importing the public API by the package
// name), run through the CLI and its own worker, against the strict fake server through both real SDK
// clients: subagents as child workflows, a handoff from OpenAI to Anthropic, structured output.

const bed = useTestBed();
const definitions = path.join(__dirname, '..', 'fixtures', 'research-team.ts');
afterEach(() => expect(bed.server.refusals).toEqual([]));

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, {
    ...bed.server.providerEnv,
    AGENT_DEFINITIONS: definitions,
    AGENT_TASK_QUEUE: uniqueTaskQueue('definitions'),
    ...env,
  });

const scriptByAgent = (scripts: Record<string, FakeStep[]>) => scriptAgents(bed.server, scripts);

const requestsOf = (agent: string) => bed.server.requests.filter((request) => agentOf(request) === agent);

it('lists the registered agents with their tools, subagents and handoffs', async () => {
  const listed = await cli(['agents', '--json']);
  expect(listed.code).toBe(0);
  const { agents } = lastJsonLine(listed.stdout) as { agents: Array<Record<string, unknown>> };
  expect(agents.map((agent) => agent.name)).toEqual([
    'default',
    'coordinator',
    'researcher',
    'writer',
    'billing',
    'extractor',
    'extractor_claude',
  ]);
  expect(agents.find((agent) => agent.name === 'coordinator')).toMatchObject({
    model: 'openai:gpt-4o-mini',
    subagents: ['researcher', 'writer'],
    handoffs: ['billing'],
  });
  expect(agents.find((agent) => agent.name === 'researcher')).toMatchObject({ tools: ['read_file', 'word_count'] });
  const text = await cli(['agents']);
  expect(text.stdout).toContain('coordinator (openai:gpt-4o-mini)\n  Splits a task');
});

it('runs a coordinator whose two subagents, on two providers, work in parallel as child workflows', async () => {
  const workspace = await makeWorkspace({ 'notes.txt': 'one two three four five' });
  scriptByAgent({
    coordinator: [
      openaiReply({
        toolCalls: [
          { id: 'call_research', name: 'researcher', arguments: { task: 'count the words in notes.txt' } },
          { id: 'call_write', name: 'writer', arguments: { task: 'write one line about notes' } },
        ],
      }),
      openaiReply({ content: 'notes.txt has 5 words; a line about it.' }),
    ],
    researcher: [
      anthropicReply({ toolCalls: [{ id: 'toolu_count', name: 'word_count', arguments: { path: 'notes.txt' } }] }),
      anthropicReply({ text: '5 words' }),
    ],
    writer: [openaiReply({ content: 'Notes: short and sweet.' })],
  });
  const id = `coordinator-${Date.now()}`;
  const run = await cli([
    'run',
    'Research notes.txt and write about it',
    '--agent',
    'coordinator',
    '--workspace',
    workspace,
    '--json',
    '--id',
    id,
  ]);
  expect(run.code).toBe(0);
  expect(lastJsonLine(run.stdout)).toMatchObject({
    status: 'completed',
    agent: 'coordinator',
    answer: 'notes.txt has 5 words; a line about it.',
  });

  // What each provider received: the subagent tools on OpenAI, the user's own tool on Anthropic, the answers back.
  const [first, second] = requestsOf('coordinator');
  expect(first.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([
    'researcher',
    'writer',
    'transfer_to_billing',
  ]);
  expect(first.body.tools[0].function.parameters).toMatchObject({ required: ['task'] });
  expect(second.body.messages.filter((message: { role: string }) => message.role === 'tool')).toEqual([
    { role: 'tool', tool_call_id: 'call_research', content: '5 words' },
    { role: 'tool', tool_call_id: 'call_write', content: 'Notes: short and sweet.' },
  ]);
  const [research] = requestsOf('researcher');
  expect(research.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['read_file', 'word_count']);
  expect(research.body.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'count the words in notes.txt' }] });
  expect(requestsOf('researcher')[1].body.messages[2].content[0]).toMatchObject({
    type: 'tool_result',
    tool_use_id: 'toolu_count',
    content: '5',
  });

  // Two child workflows, named after the parent and the tool call, started by one workflow task.
  const children = (await fetchEvents(bed.environment.client, id))
    .map((event) => event.startChildWorkflowExecutionInitiatedEventAttributes)
    .filter((attributes) => attributes !== undefined && attributes !== null);
  expect(children.map((attributes) => attributes!.workflowId)).toEqual([`${id}/call_research`, `${id}/call_write`]);
  expect(new Set(children.map((attributes) => String(attributes!.workflowTaskCompletedEventId))).size).toBe(1);
});

it('hands the conversation from an OpenAI agent to an Anthropic one, which answers', async () => {
  scriptByAgent({
    coordinator: [openaiReply({ toolCalls: [{ id: 'call_billing', name: 'transfer_to_billing', arguments: {} }] })],
    billing: [anthropicReply({ text: 'Your invoice 42 is paid.' })],
  });
  const run = await cli(['run', 'Is invoice 42 paid?', '--agent', 'coordinator', '--workspace', bed.workspace, '--json']);
  expect(run.code).toBe(0);
  expect(lastJsonLine(run.stdout)).toMatchObject({ status: 'completed', agent: 'billing', answer: 'Your invoice 42 is paid.' });
  expect(run.stderr).toContain('handed over from coordinator to billing');
  // Anthropic got the same conversation, the handoff call answered, under billing's instructions; billing has no tools,
  // so the transfer tool is defined by name only, with tool_choice none, as Anthropic needs for tool blocks.
  const [billing] = requestsOf('billing');
  expect(billing.body.system).toBe('You are billing.');
  expect(billing.body.messages).toEqual([
    { role: 'user', content: [{ type: 'text', text: 'Is invoice 42 paid?' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'call_billing', name: 'transfer_to_billing', input: {} }] },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_billing', content: 'Transferred the conversation to the agent "billing".' },
      ],
    },
  ]);
  expect(billing.body.tools).toEqual([expect.objectContaining({ name: 'transfer_to_billing' })]);
  expect(billing.body.tool_choice).toEqual({ type: 'none' });
});

it('asks OpenAI for structured output natively, tells the model what was wrong, and returns the parsed output', async () => {
  scriptByAgent({
    extractor: [openaiReply({ content: '{"city": "Lyon"}' }), openaiReply({ content: '{"city": "Lyon", "population": 522250}' })],
  });
  const run = await cli(['run', 'Lyon has 522,250 people.', '--agent', 'extractor', '--workspace', bed.workspace, '--json']);
  expect(run.code).toBe(0);
  expect(lastJsonLine(run.stdout)).toMatchObject({ status: 'completed', output: { city: 'Lyon', population: 522250 } });
  const [first, second] = requestsOf('extractor');
  expect(first.body.response_format).toMatchObject({
    type: 'json_schema',
    json_schema: { name: 'output', schema: { required: ['city', 'population'] } },
  });
  expect(second.body.messages.at(-1).content).toMatch(
    /^Your final answer does not match the required output format: [\s\S]*population/,
  );
});

it('asks Anthropic for structured output through a final-output tool it must call, and returns the parsed output', async () => {
  scriptByAgent({
    'Claude extractor': [
      anthropicReply({ toolCalls: [{ id: 'toolu_out', name: 'final_output', arguments: { city: 'Lyon', population: 522250 } }] }),
    ],
  });
  const run = await cli([
    'run',
    'Lyon has 522,250 people.',
    '--agent',
    'extractor_claude',
    '--workspace',
    bed.workspace,
    '--json',
  ]);
  expect(run.code).toBe(0);
  expect(lastJsonLine(run.stdout)).toMatchObject({
    status: 'completed',
    agent: 'extractor_claude',
    output: { city: 'Lyon', population: 522250 },
  });
  const [request] = requestsOf('Claude extractor');
  expect(request.body.tools).toEqual([
    expect.objectContaining({
      name: 'final_output',
      input_schema: expect.objectContaining({ required: ['city', 'population'] }),
    }),
  ]);
  expect(request.body.tool_choice).toEqual({ type: 'any' });
});

describe('bad definitions', () => {
  const bad = path.join(__dirname, '..', 'fixtures', 'bad-definitions.ts');

  it('stop the CLI, naming the agent and the problem', async () => {
    const listed = await cli(['agents'], { AGENT_DEFINITIONS: bad });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain('agent "lost": handoff target "nobody" is not a registered agent');
  });

  it('stop npm run worker at start, naming the agent and the problem', async () => {
    const worker = spawn('npm', ['run', '-s', 'worker'], {
      cwd: path.join(__dirname, '..', '..'),
      env: { ...process.env, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS, AGENT_DEFINITIONS: bad },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result = await collect(worker);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('worker failed: agent "lost": handoff target "nobody" is not a registered agent');
  });

  it('refuses an agent the CLI does not know, before starting anything', async () => {
    const run = await cli(['run', 'hello', '--agent', 'nobody', '--workspace', bed.workspace]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown agent "nobody"; registered agents: default, coordinator');
  });
});
