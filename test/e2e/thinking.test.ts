import OpenAI from 'openai';
import path from 'node:path';
import { collect, lastJsonLine, runCli, spawnCli } from '../support/cli';
import {
  anthropicBlocksReply,
  anthropicReply,
  openaiResponsesItemsReply,
  openaiResponsesReply,
  type FakeStep,
} from '../support/fake-model-server';
import { fetchEvents, scheduledActivities } from '../support/history';
import { reasoningPayloads, servedPayloads } from '../support/reasoning-payloads';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

// A tool loop with thinking on, through the CLI and the real SDK clients, against the strict fake server: it
// refuses, as the real APIs do, any request whose thinking or encrypted reasoning did not come back unchanged.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

// One task queue per test, so `show` finds a worker for the run the test started.
let taskQueue = '';
beforeEach(() => (taskQueue = uniqueTaskQueue('thinking')));
const cli = (args: string[]) => runCli(args, { ...bed.server.providerEnv, AGENT_TASK_QUEUE: taskQueue });

const readA = { id: 'call_a', name: 'read_file', arguments: { path: 'a.txt' } };
const readB = { id: 'call_b', name: 'read_file', arguments: { path: 'b.txt' } };

/** Each request of the loop carried back, in order, every reasoning payload of the replies before it. */
function expectEveryPayloadBack(replies: FakeStep[]): void {
  const requests = bed.server.requests;
  expect(requests).toHaveLength(replies.length);
  requests.forEach((request, index) => {
    expect(reasoningPayloads(request.body)).toEqual(replies.slice(0, index).flatMap(servedPayloads));
  });
}

it('runs a thinking tool loop on Anthropic Messages: every thinking block back unchanged, in order, on every call', async () => {
  const workspace = await makeWorkspace({ 'a.txt': 'see b.txt', 'b.txt': 'beta' });
  const replies = [
    anthropicReply({ thinking: ['The user wants a.txt; read it.'], text: 'Reading a.txt.', toolCalls: [readA] }),
    // Interleaved thinking: after the tool result the model thinks again (partly redacted) before the next call.
    anthropicBlocksReply([{ thinking: 'a.txt points to b.txt.' }, { redactedThinking: true }, { toolCall: readB }]),
    anthropicReply({ thinking: ['Both read.'], text: 'a.txt points to b.txt, which says beta.' }),
  ];
  bed.server.enqueue(...replies);
  const id = `thinking-anthropic-${Date.now()}`;
  const run = await cli([
    'run',
    'What does a.txt lead to?',
    '--model',
    'anthropic:claude-sonnet-4-6',
    '--thinking-budget',
    '2048',
    '--tools',
    'read_file',
    '--workspace',
    workspace,
    '--json',
    '--id',
    id,
  ]);

  expect(run.code).toBe(0);
  expect(lastJsonLine(run.stdout)).toMatchObject({
    status: 'completed',
    answer: 'a.txt points to b.txt, which says beta.',
    usage: { inputTokens: 600, outputTokens: 190, reasoningTokens: 100 },
  });
  expectEveryPayloadBack(replies);
  for (const request of bed.server.requests) {
    expect(request.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 2048 + 4096 });
    expect(request.headers['anthropic-beta']).toContain('interleaved-thinking-2025-05-14');
  }
  // The blocks went back exactly as they came: the second reply whole, in its own order.
  expect(bed.server.requests[2].body.messages[3]).toEqual({
    role: 'assistant',
    content: (replies[1] as { json: { content: unknown } }).json.content,
  });
  // Progress and the Web UI show that the model thought, in tokens; never what it thought.
  expect(run.stderr).toContain(
    'iteration 2 · anthropic:claude-sonnet-4-6 asked for read_file (200 in / 80 out tokens, 50 of them thinking, $0.0018)',
  );
  expect(run.stderr).not.toContain('points to b.txt.');
  const summaries = scheduledActivities(await fetchEvents(bed.environment.client, id))
    .filter((activity) => activity.activityType === 'callModel')
    .map((activity) => activity.summary);
  expect(summaries).toEqual([1, 2, 3].map((turn) => `anthropic:claude-sonnet-4-6 iteration ${turn} · thinking 2048`));

  const hidden = await cli(['show', id]);
  expect(hidden.stdout).toContain('[assistant]\n(thought; agent show --thinking prints it)\nReading a.txt.');
  expect(hidden.stdout).not.toContain('The user wants a.txt');
  expect(hidden.stderr).toContain('600 input / 190 output tokens, 100 of them thinking');
  const shown = await cli(['show', id, '--thinking']);
  expect(shown.stdout).toContain(
    '[assistant]\n[thinking] a.txt points to b.txt.\n[thinking, redacted by anthropic]\n→ read_file {"path":"b.txt"} (call_b)',
  );
});

it('runs a thinking tool loop on the OpenAI Responses API: encrypted reasoning back unchanged, nothing stored, effort passed', async () => {
  const workspace = await makeWorkspace({ 'a.txt': 'see b.txt', 'b.txt': 'beta' });
  const replies = [
    openaiResponsesReply({ reasoning: ['Read a.txt first.'], toolCalls: [readA] }),
    openaiResponsesItemsReply([{ reasoning: '' }, { text: 'Now b.txt.' }, { toolCall: readB }]),
    openaiResponsesReply({ reasoning: ['Done.'], content: 'a.txt points to b.txt, which says beta.' }),
  ];
  bed.server.enqueue(...replies);
  const run = await cli([
    'run',
    'What does a.txt lead to?',
    '--model',
    'openai-responses:o4-mini',
    '--reasoning-effort',
    'high',
    '--tools',
    'read_file',
    '--workspace',
    workspace,
    '--json',
  ]);

  expect(run.code).toBe(0);
  expect(lastJsonLine(run.stdout)).toMatchObject({
    status: 'completed',
    answer: 'a.txt points to b.txt, which says beta.',
    usage: { inputTokens: 300, outputTokens: 180, reasoningTokens: 120 },
  });
  expectEveryPayloadBack(replies);
  for (const request of bed.server.requests) {
    // OPENAI_BASE_URL is honoured: the requests came here, to the Responses endpoint.
    expect(request.path).toBe('/v1/responses');
    expect(request.body).toMatchObject({
      model: 'o4-mini',
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'high' },
    });
  }
  const last = bed.server.requests[2].body.input as Array<{ type?: string; call_id?: string }>;
  expect(last.filter((item) => item.type === 'function_call_output').map((item) => item.call_id)).toEqual(['call_a', 'call_b']);
  expect(run.stderr).toContain(
    'iteration 1 · openai-responses:o4-mini asked for read_file (100 in / 60 out tokens, 40 of them thinking, $0.000374)',
  );
});

it('refuses a thinking budget or a reasoning effort no provider accepts, before anything starts', async () => {
  const budget = await cli([
    'run',
    'hi',
    '--model',
    'anthropic:claude-sonnet-4-6',
    '--thinking-budget',
    '100',
    '--workspace',
    bed.workspace,
  ]);
  expect(budget.code).toBe(2);
  expect(budget.stderr).toContain("thinkingBudget: must be at least 1024 tokens (Anthropic's minimum)");
  const effort = await cli([
    'run',
    'hi',
    '--model',
    'openai-responses:o4-mini',
    '--reasoning-effort',
    'extreme',
    '--workspace',
    bed.workspace,
  ]);
  expect(effort.code).toBe(2);
  expect(effort.stderr).toContain('reasoningEffort: must be one of low, medium, high');
  expect(bed.server.requests).toEqual([]);
});

it('never sends one provider thinking another produced: after a handoff from OpenAI to Anthropic, and in the next turn', async () => {
  const workspace = await makeWorkspace({ 'a.txt': 'alpha' });
  const planner = [
    openaiResponsesReply({
      reasoning: ['The reviewer should do this.'],
      toolCalls: [{ id: 'call_hand', name: 'transfer_to_reviewer', arguments: {} }],
    }),
  ];
  const reviewer = [
    // The loop began without thinking (on OpenAI), so Anthropic finishes it without; the next message thinks again.
    anthropicReply({ toolCalls: [readA] }),
    anthropicReply({ text: 'a.txt says alpha.' }),
    anthropicReply({ thinking: ['A second look.'], text: 'Still alpha.' }),
  ];
  bed.server.enqueue(...planner, ...reviewer);
  // --reasoning-effort overrides the entry agent's own (medium); the reviewer keeps its thinking budget.
  const chat = spawnCli(
    [
      'chat',
      '--agent',
      'planner',
      '--reasoning-effort',
      'high',
      '--workspace',
      workspace,
      '--id',
      `thinking-handoff-${Date.now()}`,
    ],
    {
      ...bed.server.providerEnv,
      AGENT_DEFINITIONS: path.join(__dirname, '..', 'fixtures', 'thinking-team.ts'),
      AGENT_TASK_QUEUE: taskQueue,
    },
  );
  const done = collect(chat);
  chat.stdin!.write('Review a.txt\n');
  await waitForRequests(3);
  chat.stdin!.write('Look again\n/end\n');
  const result = await done;

  expect(result.code).toBe(0);
  expect(result.stdout).toContain('a.txt says alpha.');
  expect(result.stdout).toContain('Still alpha.');
  const [plannerRequest, ...anthropic] = bed.server.requests;
  expect(plannerRequest.body.reasoning).toEqual({ effort: 'high' });
  const openaiPayloads = servedPayloads(planner[0]);
  expect(openaiPayloads).toHaveLength(1);
  for (const request of anthropic) {
    expect(request.path).toBe('/v1/messages');
    expect(JSON.stringify(request.body)).not.toContain(openaiPayloads[0]);
    expect(JSON.stringify(request.body)).not.toContain('The reviewer should do this.');
  }
  expect(anthropic.map((request) => request.body.thinking)).toEqual([
    undefined,
    undefined,
    { type: 'enabled', budget_tokens: 2048 },
  ]);
});

it('lists what each agent thinks with', async () => {
  const env = { AGENT_DEFINITIONS: path.join(__dirname, '..', 'fixtures', 'thinking-team.ts') };
  const listed = await runCli(['agents'], env);
  expect(listed.stdout).toContain(
    'reviewer (anthropic:claude-sonnet-4-6)\n  Reviews files with care.\n  tools: read_file\n  subagents: none\n  handoffs: none\n  thinks with up to 2048 tokens',
  );
  expect(listed.stdout).toContain('  reasoning effort: medium');
  const json = lastJsonLine((await runCli(['agents', '--json'], env)).stdout) as {
    agents: Array<{ name: string; modelSettings: unknown }>;
  };
  expect(json.agents.find((agent) => agent.name === 'planner')?.modelSettings).toEqual({ reasoningEffort: 'medium' });
});

async function waitForRequests(count: number): Promise<void> {
  for (let waited = 0; bed.server.requests.length < count; waited += 100) {
    if (waited > 60_000) throw new Error(`the fake server got ${bed.server.requests.length} requests, expected ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('serves the Responses API as server-sent events too, the streamed reply adding up to the JSON one', async () => {
  const reply = openaiResponsesItemsReply([{ reasoning: 'Plan.' }, { text: 'Reading.' }, { toolCall: readA }]);
  bed.server.enqueue(reply, reply);
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${bed.server.url}/v1`, maxRetries: 0 });
  const body = { model: 'o4-mini', input: 'go', store: false, include: ['reasoning.encrypted_content' as const] };
  const whole = await client.responses.create(body);
  const events: string[] = [];
  const stream = client.responses.stream(body).on('event', (event) => events.push(event.type));
  const streamed = await stream.finalResponse();
  expect(bed.server.requests[1].body.stream).toBe(true);
  // The stream helper adds its parse results (parsed, parsed_arguments) to what the API sent.
  expect(streamed.output).toMatchObject(whole.output);
  expect(reasoningPayloads(streamed.output)).toEqual(servedPayloads(reply));
  expect(events).toEqual(
    expect.arrayContaining([
      'response.created',
      'response.output_text.delta',
      'response.function_call_arguments.done',
      'response.completed',
    ]),
  );
});
