import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { MessageNotAnsweredError, sendMessage } from '../../client/send-message';
import { agentWorkflowType, messagesQuery } from '../../workflows/definitions';
import { reflectionPrompt } from '../../workflows/turn';
import { providerError, providerReply as anyProviderReply, type FakeProvider } from '../support/fake-model-server';
import { completedUpdates, fetchEvents, scheduledActivities } from '../support/history';
import { reasoningPayloads, servedPayloads } from '../support/reasoning-payloads';
import { EventType, workflowExecutionFailure } from '../support/fault-history';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { toolResultsSent } from '../support/wire-results';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// Faults of the conversation itself, through the real OpenAI and Anthropic clients against a fake
// server that refuses what the real APIs refuse. Every test ends by checking that no request the
// engine sent was refused: the engine never sends a conversation a provider would reject.

const bed = useTestBed();
const models: Record<FakeProvider, string> = {
  openai: 'openai:gpt-4o-mini',
  'openai-responses': 'openai-responses:o4-mini',
  anthropic: 'anthropic:claude-haiku-4-5',
};

/**
 * Each provider, and each provider again with the model thinking in every reply (extended thinking on
 * Anthropic, encrypted reasoning on the Responses API): every path must send the thinking back as the
 * provider requires, or leave it out where it may, and the strict fake refuses anything else.
 */
interface Variant {
  name: string;
  provider: FakeProvider;
  run: Pick<AgentInput, 'model' | 'thinkingBudget' | 'reasoningEffort'>;
  thinking?: string;
}
const variants: Variant[] = [
  { name: 'openai', provider: 'openai', run: { model: models.openai } },
  { name: 'anthropic', provider: 'anthropic', run: { model: models.anthropic } },
  {
    name: 'anthropic, thinking',
    provider: 'anthropic',
    run: { model: 'anthropic:claude-sonnet-4-6', thinkingBudget: 2048 },
    thinking: 'Let me think.',
  },
  {
    name: 'openai-responses, reasoning',
    provider: 'openai-responses',
    run: { model: models['openai-responses'], reasoningEffort: 'low' },
    thinking: 'Let me think.',
  },
];
const tools = ['read_file', 'list_directory'];

afterEach(() => expect(bed.server.refusals).toEqual([]));

async function withWorker<T>(body: (taskQueue: string, worker: Worker) => Promise<T>): Promise<T> {
  const taskQueue = uniqueTaskQueue('conversation');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  return worker.runUntil(() => body(taskQueue, worker));
}

async function start(taskQueue: string, input: Omit<AgentInput, 'workspace'>) {
  const workflowId = `conversation-${randomUUID()}`;
  await bed.environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
    taskQueue,
    workflowId,
    args: [resolved({ tools, workspace: bed.workspace, ...input })],
  });
  // By workflow id only: messages follow the session across continue-as-new.
  return bed.environment.client.workflow.getHandle<(input: unknown) => Promise<AgentResult>>(workflowId);
}

const listCall = (id: string) => ({ id, name: 'list_directory', arguments: {} });
const body = (index: number) => bed.server.requests[index].body;

/** What a request says about tools: offered definitions and the tool choice, in either provider's format. */
function toolSettings(provider: FakeProvider, index: number): { tools: string[]; choice: unknown } {
  const request = body(index);
  const names = (request.tools ?? []).map((tool: { name?: string; function?: { name: string } }) =>
    provider === 'openai' ? tool.function!.name : tool.name!,
  );
  return { tools: names, choice: request.tool_choice };
}

const noToolsChoice: Record<FakeProvider, unknown> = { openai: 'none', 'openai-responses': 'none', anthropic: { type: 'none' } };

/** The conversation a request carried, whatever the provider's format, as text to search. */
const conversationSent = (index: number) => JSON.stringify(body(index).messages ?? body(index).input);

describe.each(variants)('$name', ({ provider, run, thinking }) => {
  const providerReply = (_provider: FakeProvider, options: Parameters<typeof anyProviderReply>[1]) =>
    anyProviderReply(provider, { ...options, thinking });

  it('ends at the iteration limit with a closing reflection that keeps the tools defined but unusable', async () => {
    bed.server.respondWith((request) =>
      request.body.tool_choice
        ? providerReply(provider, { text: 'I listed the directory twice.' })
        : providerReply(provider, { toolCalls: [listCall(`call_${randomUUID().slice(0, 8)}`)] }),
    );
    const result = await withWorker(async (taskQueue) =>
      (await start(taskQueue, { prompt: 'keep listing', ...run, maxIterations: 2 })).result(),
    );
    expect(result).toMatchObject({ status: 'max_iterations', answer: 'I listed the directory twice.', iterations: 2 });
    expect(bed.server.requests).toHaveLength(3);
    expect(toolSettings(provider, 2)).toEqual({ tools, choice: noToolsChoice[provider] });
    expect(conversationSent(2)).toContain(reflectionPrompt);
  });

  it('makes the context summary call with the tools defined but unusable, then goes on from the summary', async () => {
    bed.server.enqueue(
      providerReply(provider, { toolCalls: [listCall('s1')], inputTokens: 10 }),
      providerReply(provider, { toolCalls: [listCall('s2')], inputTokens: 100 }),
      providerReply(provider, { text: 'the summary' }),
      providerReply(provider, { text: 'done' }),
    );
    // The second call's input (100 tokens) is over the budget: the turns before it, a tool round among them, are summarised.
    const handle = await withWorker(async (taskQueue) => {
      const started = await start(taskQueue, {
        prompt: 'summarise',
        ...run,
        context: { maxContextTokens: 50, keepRecentTurns: 1 },
      });
      await started.result();
      return started;
    });
    expect((await handle.result()).answer).toBe('done');
    expect(bed.server.requests).toHaveLength(4);
    expect(toolSettings(provider, 2)).toEqual({ tools, choice: noToolsChoice[provider] });
    expect(toolResultsSent(bed.server.requests[2]).map((result) => result.id)).toEqual(['s1']);
    expect(conversationSent(3)).toContain('the summary');
  });

  it.each<['length' | 'refusal', string]>([
    ['length', 'not run: the reply was cut at the output-token limit, so its arguments may be incomplete'],
    ['refusal', 'not run: the reply was refused'],
  ])(
    'closes the tool calls of a reply ended by %s with error results, and the next message is answered',
    async (finish, reason) => {
      bed.server.enqueue(
        providerReply(provider, { text: 'partial', toolCalls: [listCall('cut_1'), listCall('cut_2')], finish }),
        providerReply(provider, { text: 'second answer' }),
      );
      await withWorker(async (taskQueue) => {
        const handle = await start(taskQueue, { ...run, session: { idleTimeoutSeconds: 600 } });
        expect(await sendMessage(handle, 'first')).toMatchObject({
          status: finish === 'length' ? 'truncated' : 'refused',
          answer: 'partial',
        });
        expect(await sendMessage(handle, 'second')).toMatchObject({ status: 'completed', answer: 'second answer' });
        await handle.terminate('test over');
      });
      expect(toolResultsSent(bed.server.requests[1])).toEqual([
        { id: 'cut_1', content: `Error: ${reason}` },
        { id: 'cut_2', content: `Error: ${reason}` },
      ]);
    },
  );

  it('fails only the message whose request the provider rejects, rolls it back, and answers the next one', async () => {
    bed.server.enqueue(
      providerError(provider, 400, 'prompt is too long: 250000 tokens > 200000 maximum'),
      providerReply(provider, { text: 'short answer' }),
    );
    const { failure, reply, conversation, workflowId } = await withWorker(async (taskQueue) => {
      const handle = await start(taskQueue, { ...run, session: { idleTimeoutSeconds: 600 } });
      const failure = await sendMessage(handle, 'a very long message').catch((error: unknown) => error);
      const reply = await sendMessage(handle, 'a short one');
      const conversation = await handle.query(messagesQuery);
      await handle.terminate('test over');
      return { failure, reply, conversation, workflowId: handle.workflowId };
    });
    expect(failure).toBeInstanceOf(MessageNotAnsweredError);
    expect((failure as MessageNotAnsweredError).message).toContain('prompt is too long: 250000 tokens > 200000 maximum');
    expect(reply).toMatchObject({ status: 'completed', answer: 'short answer' });
    // Rolled back: the failed message is not in the conversation, nor in what the model saw next.
    expect(conversation.map((message) => message.content)).toEqual(['a short one', 'short answer']);
    expect(conversationSent(1)).not.toContain('a very long message');
    const events = await fetchEvents(bed.environment.client, workflowId);
    const failedUpdate = events.find((event) => event.workflowExecutionUpdateCompletedEventAttributes?.outcome?.failure);
    expect(failedUpdate?.workflowExecutionUpdateCompletedEventAttributes?.outcome?.failure?.message).toContain(
      'prompt is too long',
    );
    expect(workflowExecutionFailure(events)).toBeUndefined();
  });

  it('answers every queued message when the first turn spends the token budget, and refuses later ones', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    bed.server.enqueue({ gate, then: providerReply(provider, { text: 'all I could do' }) });
    const { replies, result, late } = await withWorker(async (taskQueue) => {
      const handle = await start(taskQueue, {
        prompt: 'spend it all',
        ...run,
        session: { idleTimeoutSeconds: 600 },
        maxSessionTokens: 10,
      });
      await waitFor('the first model request', () => bed.server.requests.length === 1);
      const queued = [sendMessage(handle, 'queued one'), sendMessage(handle, 'queued two')];
      await waitFor(
        'both messages to be queued',
        async () => ((await handle.query('status')) as { queuedMessages: number }).queuedMessages === 2,
      );
      release();
      const replies = await Promise.all(queued);
      const result = await handle.result();
      const late = await sendMessage(handle, 'too late').catch((error: Error) => error.message);
      return { replies, result, late };
    });
    expect(replies).toEqual([
      { answer: '', status: 'token_budget', iterations: 0, usage: { inputTokens: 0, outputTokens: 0 }, agent: 'default' },
      { answer: '', status: 'token_budget', iterations: 0, usage: { inputTokens: 0, outputTokens: 0 }, agent: 'default' },
    ]);
    expect(result).toMatchObject({ status: 'token_budget', answer: 'all I could do', turns: 1 });
    expect(late).toMatch(/completed|no more messages/i);
    expect(bed.server.requests).toHaveLength(1);
  });
});

describe.each(variants)('$name, long and busy sessions', ({ provider, run, thinking }) => {
  const providerReply = (_provider: FakeProvider, options: Parameters<typeof anyProviderReply>[1]) =>
    anyProviderReply(provider, { ...options, thinking });

  it('continues a session as new in the middle of a long tool loop and still delivers the reply', async () => {
    const replies = [
      ...['l1', 'l2', 'l3', 'l4'].map((id) => providerReply(provider, { toolCalls: [listCall(id)] })),
      providerReply(provider, { text: 'listed four times' }),
    ];
    bed.server.enqueue(...replies);
    const { reply, runs, workflowId } = await withWorker(async (taskQueue) => {
      const handle = await start(taskQueue, { ...run, session: { idleTimeoutSeconds: 600 }, continueAsNewAfterModelCalls: 2 });
      const reply = await sendMessage(handle, 'list four times');
      const runs: string[] = [];
      for await (const execution of bed.environment.client.workflow.list({ query: `WorkflowId = "${handle.workflowId}"` }))
        runs.unshift(execution.runId);
      await handle.terminate('test over');
      return { reply, runs, workflowId: handle.workflowId };
    });
    expect(reply).toMatchObject({ status: 'completed', answer: 'listed four times', iterations: 5 });
    expect(reply.usage.inputTokens).toBeGreaterThan(0);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    // The first run told the caller to ask the next run; a later run answered, and no model call was repeated.
    const first = await bed.environment.client.workflow.getHandle(workflowId, runs[0]).fetchHistory();
    expect(completedUpdates(first.events ?? [])).toEqual([{ name: 'sendMessage', result: { status: 'pending', ticket: 0 } }]);
    const last = await bed.environment.client.workflow.getHandle(workflowId, runs.at(-1)).fetchHistory();
    expect(completedUpdates(last.events ?? []).at(-1)).toEqual({ name: 'awaitReply', result: reply });
    expect(bed.server.requests).toHaveLength(5);
    expect(toolResultsSent(bed.server.requests[4]).map((result) => result.id)).toEqual(['l1', 'l2', 'l3', 'l4']);
    // The loop's thinking crossed each continue-as-new: every request carried back all of it, unchanged.
    bed.server.requests.forEach((request, index) => {
      expect(reasoningPayloads(request.body)).toEqual(replies.slice(0, index).flatMap(servedPayloads));
      if (run.thinkingBudget !== undefined)
        expect(request.body.thinking).toEqual({ type: 'enabled', budget_tokens: run.thinkingBudget });
    });
    if (thinking) expect(replies.flatMap(servedPayloads)).toHaveLength(5);
  });
});

// Temporal runs at most 10 updates of one workflow at once. The client retries the server's refusal for about
// half a minute (a slot may free up meanwhile), then says clearly why the message was not taken. The limit is
// Temporal's, not a provider's, so one provider is enough here.
it("answers ten concurrent messages and gives the eleventh, over Temporal's in-flight limit, a clear refusal", async () => {
  const provider: FakeProvider = 'openai';
  const model = models[provider];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  // Each reply repeats the message it answers, so the test can match replies to messages.
  const echo = (request: { body: { messages: Array<{ role: string; content: unknown }> } }) => {
    const last = request.body.messages.filter((message) => message.role === 'user').at(-1)!;
    const text =
      typeof last.content === 'string'
        ? last.content
        : (last.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('');
    return anyProviderReply(provider, { text: `re: ${text}` });
  };
  bed.server.respondWith((request, index) => (index === 0 ? { gate, then: echo(request) } : echo(request)));
  const outcomes = await withWorker(async (taskQueue) => {
    const handle = await start(taskQueue, { model, session: { idleTimeoutSeconds: 600 } });
    let refusedSoFar = 0;
    const sends = Array.from({ length: 11 }, (_, index) =>
      sendMessage(handle, `message ${index}`).then(
        (reply) => ({ sent: `message ${index}`, answer: reply.answer }),
        (error: Error) => {
          refusedSoFar++;
          return { sent: `message ${index}`, refused: error.message };
        },
      ),
    );
    // The first turn is held until the refusal arrived: until then all ten admitted messages stay in flight.
    await waitFor('a message to be refused', () => refusedSoFar === 1, { timeoutMs: 60_000 });
    release();
    const outcomes = await Promise.all(sends);
    await handle.terminate('test over');
    return outcomes;
  });
  const refused = outcomes.filter((outcome) => 'refused' in outcome);
  const answered = outcomes.filter((outcome) => 'answer' in outcome);
  expect(refused).toHaveLength(1);
  expect(refused[0]).toMatchObject({ refused: expect.stringContaining('10 messages waiting for their replies') });
  expect(answered).toHaveLength(10);
  for (const outcome of answered) expect(outcome).toEqual({ sent: outcome.sent, answer: `re: ${outcome.sent}` });
  expect(bed.server.requests).toHaveLength(10);
}, 120_000);

describe('the workspace root', () => {
  it("refuses a workspace outside the worker's root before any model call, / included", async () => {
    const root = await makeWorkspace();
    const outside = await makeWorkspace();
    const taskQueue = uniqueTaskQueue('workspace-root');
    const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv, workspaceRoot: root });
    const failures = await worker.runUntil(async () =>
      Promise.all(
        [outside, '/'].map(async (workspace) => {
          const workflowId = `outside-root-${randomUUID()}`;
          const failure = await bed.environment.client.workflow
            .execute(agentWorkflowType, {
              taskQueue,
              workflowId,
              args: [resolved({ prompt: 'hello', model: models.openai, workspace })],
            })
            .catch((error: unknown) => error);
          return { failure, events: await fetchEvents(bed.environment.client, workflowId), workspace };
        }),
      ),
    );
    for (const { failure, events, workspace } of failures) {
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((failure as WorkflowFailedError).cause).toMatchObject({
        type: 'AgentConfigurationError',
        nonRetryable: true,
        message: `workspace "${workspace}" is outside this worker's workspace root "${root}" (AGENT_WORKSPACE_ROOT)`,
      });
      expect(scheduledActivities(events).map((activity) => activity.activityType)).toEqual(['prepareRun']);
      expect(events.some((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED)).toBe(true);
    }
    expect(bed.server.requests).toHaveLength(0);
  });
});
