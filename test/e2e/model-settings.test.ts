import path from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { startAgent } from '../../client/start-agent';
import type { AgentInput } from '../../core/resolve-input';
import { activityCalls } from '../support/activity-calls';
import { lastJsonLine, runCli } from '../support/cli';
import { anthropicReply, openaiReply, openaiResponsesReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { createTestWorker, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';

// A run's model settings travel as one modelSettings object, from the flags (or startAgent) to the request the
// provider's API receives: asserted here on what the fake model server received, through the real SDK clients.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

let taskQueue = '';
beforeEach(() => (taskQueue = uniqueTaskQueue('settings')));
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { ...bed.server.providerEnv, AGENT_TASK_QUEUE: taskQueue, ...env });

/** What the run recorded as its input, and as the model activity's settings. */
async function recorded(workflowId: string): Promise<{ input: Record<string, unknown>; callSettings: unknown[] }> {
  const events = await fetchEvents(bed.environment.client, workflowId);
  const started = events[0].workflowExecutionStartedEventAttributes!;
  const input = defaultPayloadConverter.fromPayload(started.input!.payloads![0] as Payload) as Record<string, unknown>;
  const callSettings = activityCalls(events)
    .filter((call) => call.activityType === 'callModel')
    .map((call) => (call.input as { modelSettings?: unknown }).modelSettings);
  return { input, callSettings };
}

const providers = [
  {
    provider: 'openai',
    model: 'openai:gpt-4o-mini',
    reply: openaiReply({ content: 'done' }),
    flags: ['--reasoning-effort', 'low'],
    settings: { temperature: 0.3, maxOutputTokens: 300, reasoningEffort: 'low' },
    wire: { path: '/v1/chat/completions', body: { temperature: 0.3, max_completion_tokens: 300, reasoning_effort: 'low' } },
  },
  {
    provider: 'openai-responses',
    model: 'openai-responses:o4-mini',
    reply: openaiResponsesReply({ content: 'done' }),
    flags: ['--reasoning-effort', 'low'],
    settings: { temperature: 0.3, maxOutputTokens: 300, reasoningEffort: 'low' },
    wire: { path: '/v1/responses', body: { temperature: 0.3, max_output_tokens: 300, reasoning: { effort: 'low' } } },
  },
  {
    provider: 'anthropic',
    model: 'anthropic:claude-haiku-4-5',
    reply: anthropicReply({ text: 'done' }),
    flags: [],
    settings: { temperature: 0.3, maxOutputTokens: 300 },
    wire: { path: '/v1/messages', body: { temperature: 0.3, max_tokens: 300 } },
  },
];

it.each(providers)(
  'sends --temperature, --max-output-tokens and --reasoning-effort to $provider as its API names them',
  async ({ model, reply, flags, settings, wire }) => {
    bed.server.enqueue(reply);
    const id = `settings-${model.replace(/[:.]/g, '-')}-${Date.now()}`;
    const run = await cli([
      'run',
      'hi',
      '--model',
      model,
      '--temperature',
      '0.3',
      '--max-output-tokens',
      '300',
      ...flags,
      '--workspace',
      bed.workspace,
      '--json',
      '--id',
      id,
    ]);

    expect(run.code).toBe(0);
    expect(lastJsonLine(run.stdout)).toMatchObject({ status: 'completed', answer: 'done' });
    expect(bed.server.requests).toHaveLength(1);
    expect(bed.server.requests[0].path).toBe(wire.path);
    expect(bed.server.requests[0].body).toMatchObject(wire.body);
    // One object all the way: the run's input and the model call's input carry modelSettings, nothing one by one.
    const { input, callSettings } = await recorded(id);
    expect(input.modelSettings).toEqual(settings);
    for (const name of ['maxOutputTokens', 'thinkingBudget', 'reasoningEffort', 'temperature'])
      expect(input).not.toHaveProperty(name);
    expect(callSettings).toEqual([settings]);
  },
);

it("lays a run's flags over the agent's own settings, setting by setting", async () => {
  bed.server.enqueue(openaiReply({ content: 'tuned' }));
  const run = await cli(['run', 'hi', '--agent', 'tuned', '--temperature', '0.7', '--workspace', bed.workspace, '--json'], {
    AGENT_DEFINITIONS: path.join(__dirname, '..', 'fixtures', 'tuned-agents.ts'),
  });

  expect(run.code).toBe(0);
  // The run's temperature, the agent's output limit.
  expect(bed.server.requests[0].body).toMatchObject({ temperature: 0.7, max_completion_tokens: 2000 });
});

it("refuses Anthropic's temperature with thinking before anything starts, and lets OpenAI ignore the budget", async () => {
  const thinkingAndWarm = (model: string) =>
    cli([
      'run',
      'hi',
      '--model',
      model,
      '--thinking-budget',
      '2048',
      '--temperature',
      '0.5',
      '--workspace',
      bed.workspace,
      '--json',
    ]);
  const refused = await thinkingAndWarm('anthropic:claude-sonnet-4-6');
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('modelSettings.temperature cannot be set (other than 1) together with thinkingBudget');
  expect(bed.server.requests).toEqual([]);

  bed.server.enqueue(openaiReply({ content: 'fine' }));
  const ignored = await thinkingAndWarm('openai:gpt-4o-mini');
  expect(ignored.code).toBe(0);
  expect(bed.server.requests[0].body).toMatchObject({ temperature: 0.5 });
  expect(JSON.stringify(bed.server.requests[0].body)).not.toContain('2048');
});

it.each<[string, Partial<AgentInput>]>([
  ['modelSettings', { modelSettings: { reasoningEffort: 'high', maxOutputTokens: 250 } }],
  // The older shape, as the README documented it: accepted, and resolved into modelSettings.
  ['the older shape, settings one by one', { reasoningEffort: 'high', maxOutputTokens: 250 }],
])('startAgent takes the run settings as %s', async (_shape, settings) => {
  bed.server.enqueue(openaiResponsesReply({ content: 'library' }));
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const handle = await startAgent(
    bed.environment.client,
    { prompt: 'hi', model: 'openai-responses:o4-mini', workspace: bed.workspace, ...settings },
    { taskQueue },
  );
  const result = await worker.runUntil(handle.result());

  expect(result).toMatchObject({ status: 'completed', answer: 'library' });
  expect(bed.server.requests[0].body).toMatchObject({ reasoning: { effort: 'high' }, max_output_tokens: 250 });
  expect((await recorded(handle.workflowId)).input.modelSettings).toEqual({ reasoningEffort: 'high', maxOutputTokens: 250 });
  // The Web UI's details name each setting the run gives.
  const details = await (await handle.describe()).staticDetails();
  expect(details).toContain('**model settings** ');
  expect(details).toContain('`reasoningEffort` high');
  expect(details).toContain('`maxOutputTokens` 250');
});
