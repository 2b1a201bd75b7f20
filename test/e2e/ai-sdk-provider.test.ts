import { randomUUID } from 'node:crypto';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createMistral } from '@ai-sdk/mistral';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { forkAgent } from '../../client/fork-agent';
import { sendMessage } from '../../client/send-message';
import { startAgent } from '../../client/start-agent';
import type { AgentResult, TurnReply } from '../../core/result';
import { agentStreamTopic, type StreamEvent } from '../../core/stream-events';
import { aiSdkProvider } from '../../providers';
import { agentWorkflowType, endSessionSignal, sendMessageUpdate } from '../../workflows/definitions';
import { anthropicReply } from '../support/fake-model-server';
import { geminiError, geminiReply, mistralReply } from '../support/gemini-and-mistral-replies';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

// AI SDK models as providers (issue 38): the real @ai-sdk/google and @ai-sdk/mistral packages, registered with
// aiSdkProvider, against the fake server's Gemini and Mistral wire formats, which refuse what the real APIs refuse.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

const gemini = 'google:gemini-2.5-flash';
const mistral = 'mistral:mistral-large-latest';
const claude = 'anthropic:claude-haiku-4-5';

async function withWorker<T>(body: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = uniqueTaskQueue('ai-sdk');
  const providers = [
    aiSdkProvider('google', createGoogleGenerativeAI({ baseURL: `${bed.server.url}/v1beta`, apiKey: 'test-google-key' })),
    aiSdkProvider('mistral', createMistral({ baseURL: `${bed.server.url}/mistral/v1`, apiKey: 'test-mistral-key' })),
  ];
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv, providers });
  return worker.runUntil(() => body(taskQueue));
}

const readBoth = [
  { id: 'fc-a', name: 'read_file', arguments: { path: 'a.txt' } },
  { id: 'fc-b', name: 'read_file', arguments: { path: 'b.txt' } },
];

it('runs parallel tool calls on Gemini through a 429 and a cut stream: streamed once, paired, priced', async () => {
  const workspace = await makeWorkspace({ 'a.txt': 'a says hi', 'b.txt': 'b says ho' });
  bed.server.enqueue(
    // The connection drops after two pieces of text: a retried attempt writes the text again, from the start.
    {
      ...geminiReply({ thinking: 'Read both.', text: 'Reading both files now.', toolCalls: readBoth }),
      stream: { stopAfter: 3, cut: true },
    },
    // Asked to wait a second: the retry comes then, not after the two seconds of the third attempt's backoff.
    geminiError(429, 'Resource has been exhausted (e.g. check quota).', { 'retry-after': '1' }),
    geminiReply({ thinking: 'Read both.', text: 'Reading both files now.', toolCalls: readBoth }),
    geminiReply({ text: 'a says hi; b says ho.' }),
  );
  const { events, reply } = await withWorker(async (taskQueue) => {
    // A session, so that the run's stream outlives the turn and a watcher reads it to the end.
    const handle = await startAgent(
      bed.environment.client,
      { model: gemini, tools: ['read_file'], workspace, session: { idleTimeoutSeconds: 600 }, stream: true },
      { taskQueue },
    );
    const subscription = WorkflowStreamClient.create(bed.environment.client, handle.workflowId)
      .topic<StreamEvent>(agentStreamTopic)
      .subscribe(0);
    const reply = handle.executeUpdate(sendMessageUpdate, { args: ['What do a.txt and b.txt say?'] });
    const events: StreamEvent[] = [];
    for await (const item of subscription) {
      events.push(item.data);
      if (item.data.type === 'turn_end') break;
    }
    await handle.signal(endSessionSignal);
    return { events, reply: (await reply) as TurnReply };
  });
  const result = reply;
  expect(result).toMatchObject({ status: 'completed', answer: 'a says hi; b says ho.', iterations: 2 });
  expect(bed.server.requests).toHaveLength(4);
  // What a watcher shows: each call's text after its last reset, once.
  const shown = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'reset') shown.set(event.call, '');
    if (event.type === 'text') shown.set(event.call, (shown.get(event.call) ?? '') + event.text);
  }
  expect([...shown.values()]).toEqual(['Reading both files now.', 'a says hi; b says ho.']);
  expect(events.filter((event) => event.type === 'reset')).toHaveLength(2);
  expect(events.filter((event) => event.type === 'model_retry')).toEqual([
    expect.objectContaining({ attempt: 1, host: 'google', retryInMs: 1000 }),
    expect.objectContaining({ attempt: 2, error: 'HTTP 429: Resource has been exhausted (e.g. check quota).', retryInMs: 1000 }),
  ]);
  // Both calls ran, and their results went back paired with the calls, in the model's order.
  const answered = bed.server.requests[3].body.contents[2].parts;
  expect(answered.map((part: { functionResponse: { id: string; response: unknown } }) => part.functionResponse)).toEqual([
    { id: 'fc-a', name: 'read_file', response: { name: 'read_file', content: 'a says hi' } },
    { id: 'fc-b', name: 'read_file', response: { name: 'read_file', content: 'b says ho' } },
  ]);
  // The two answered calls' tokens (120 in, 25 out, 30 of them thinking) at gemini-2.5-flash's price.
  expect(result.usage).toMatchObject({ inputTokens: 240, outputTokens: 80, reasoningTokens: 30 });
  expect(result.usage.unpricedCalls).toBeUndefined();
  expect(result.usage.costUsd).toBeCloseTo((240 * 0.3 + 80 * 2.5) / 1e6, 12);
});

it('continues a Mistral session as new between tool rounds, with its own call ids, its cost said to be unknown', async () => {
  const workspace = await makeWorkspace({ 'a.txt': 'a says hi', 'b.txt': 'b says ho' });
  bed.server.enqueue(
    mistralReply({
      toolCalls: [
        { id: 'R3adA0001', name: 'read_file', arguments: { path: 'a.txt' } },
        { id: 'R3adB0002', name: 'read_file', arguments: { path: 'b.txt' } },
      ],
    }),
    mistralReply({ text: 'hi and ho' }),
    mistralReply({ text: 'still hi and ho' }),
  );
  const { replies, result } = await withWorker(async (taskQueue) => {
    const workflowId = `ai-sdk-can-${randomUUID()}`;
    const handle = await bed.environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [
        resolved({
          model: mistral,
          tools: ['read_file'],
          workspace,
          session: { idleTimeoutSeconds: 600 },
          continueAsNewAfterModelCalls: 1,
        }),
      ],
    });
    const replies: TurnReply[] = [];
    for (const question of ['What do a.txt and b.txt say?', 'And now?']) replies.push(await sendMessage(handle, question));
    const latest = bed.environment.client.workflow.getHandle(workflowId);
    await latest.signal(endSessionSignal);
    return { replies, result: await latest.result() };
  });
  expect(replies.map((reply) => reply.answer)).toEqual(['hi and ho', 'still hi and ho']);
  // The last request holds the whole conversation, across the runs: the calls with Mistral's ids, both answered.
  const messages = bed.server.requests[2].body.messages;
  expect(messages.map((message: { role: string }) => message.role)).toEqual([
    'user',
    'assistant',
    'tool',
    'tool',
    'assistant',
    'user',
  ]);
  expect(messages[2].tool_call_id).toBe('R3adA0001');
  expect(result.usage).toMatchObject({ inputTokens: 270, outputTokens: 45, unpricedCalls: 3 });
  expect(result.usage.costUsd).toBeUndefined();
});

it('forks a Gemini conversation at message 3 onto Anthropic, and that one back onto Gemini', async () => {
  const workspace = await makeWorkspace({ 'a.txt': 'a says hi' });
  await withWorker(async (taskQueue) => {
    bed.server.enqueue(geminiReply({ thinking: 'Read it.', toolCalls: [readBoth[0]] }), geminiReply({ text: 'a says hi.' }));
    const source = `ai-sdk-fork-${randomUUID()}`;
    await bed.environment.client.workflow.execute(agentWorkflowType, {
      taskQueue,
      workflowId: source,
      args: [resolved({ prompt: 'What does a.txt say?', model: gemini, tools: ['read_file'], workspace })],
    });

    bed.server.enqueue(
      anthropicReply({
        thinking: ['Once more.'],
        toolCalls: [{ id: 'toolu_01', name: 'read_file', arguments: { path: 'a.txt' } }],
      }),
      anthropicReply({ text: 'Still hi.' }),
    );
    const onClaude = await forkAgent(bed.environment.client, {
      workflowId: source,
      at: 3,
      model: claude,
      prompt: 'Read it again.',
      taskQueue,
    });
    expect(onClaude.reply).toMatchObject({ status: 'completed', answer: 'Still hi.' });
    const toClaude = bed.server.requests[2].body;
    expect(toClaude.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'user']);
    // Gemini's thought and its signature are Gemini's: Anthropic is sent neither.
    expect(JSON.stringify(toClaude)).not.toContain('Read it.');

    bed.server.enqueue(geminiReply({ text: 'Hi, a third time.' }));
    const backOnGemini = await forkAgent(bed.environment.client, {
      workflowId: onClaude.handle.workflowId,
      model: gemini,
      prompt: 'And on Gemini?',
      taskQueue,
    });
    expect(backOnGemini.reply).toMatchObject({ status: 'completed', answer: 'Hi, a third time.' });
    const contents = bed.server.requests[4].body.contents;
    // The prompt that began the Anthropic fork follows the tool results as a turn of its own.
    expect(contents.map((content: { role: string }) => content.role)).toEqual([
      'user',
      'model',
      'user',
      'user',
      'model',
      'user',
      'model',
      'user',
    ]);
    // Its own thought went back with its signature; Anthropic's thinking did not.
    expect(contents[1].parts[0]).toMatchObject({ text: 'Read it.', thought: true });
    expect(contents[1].parts[1].thoughtSignature).toEqual(expect.any(String));
    expect(JSON.stringify(contents)).not.toContain('Once more.');
    await Promise.all([onClaude.handle.terminate('test over'), backOnGemini.handle.terminate('test over')]);
  });
});
