import { randomUUID } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { forkAgent, forkedFromSearchAttribute } from '../../client/fork-agent';
import { InvalidInputError } from '../../client/start-agent';
import { sendMessage } from '../../client/send-message';
import { agentWorkflowType, messagesQuery, settingsQuery } from '../../workflows/definitions';
import { lastJsonLine, runCli } from '../support/cli';
import { anthropicReply, openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

// Forking a conversation: a new run from another's messages, through the real SDK clients and the strict fake
// server. The source is read, never changed: each test checks its history is the same before and after.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

const openai = 'openai:gpt-4o-mini';

async function withWorker<T>(body: (taskQueue: string, worker: Worker) => Promise<T>): Promise<T> {
  const taskQueue = uniqueTaskQueue('fork');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  return worker.runUntil(() => body(taskQueue, worker));
}

/** A finished source run: it read alpha.txt and answered; 4 messages: user, assistant (tool call), tool, assistant. */
async function finishedSource(taskQueue: string, input: Partial<AgentInput> = {}): Promise<string> {
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha says hi' });
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'read_1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
    openaiReply({ content: 'alpha.txt says hi' }),
  );
  const workflowId = `fork-source-${randomUUID()}`;
  await bed.environment.client.workflow.execute<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
    taskQueue,
    workflowId,
    args: [resolved({ prompt: 'What does alpha.txt say?', model: openai, tools: ['read_file'], workspace, ...input })],
  });
  return workflowId;
}

const eventCount = async (workflowId: string) => (await fetchEvents(bed.environment.client, workflowId)).length;

it('forks a finished run at its end: the fork waits as a session and goes on from the whole conversation', async () => {
  await withWorker(async (taskQueue) => {
    const source = await finishedSource(taskQueue);
    const before = await eventCount(source);
    const fork = await forkAgent(bed.environment.client, { workflowId: source, taskQueue });
    expect(fork.forkedFrom).toMatchObject({ workflowId: source, messageIndex: 4 });
    bed.server.enqueue(openaiReply({ content: 'and nothing else' }));
    const reply = await sendMessage(bed.environment.client.workflow.getHandle(fork.handle.workflowId), 'anything else?');
    expect(reply).toMatchObject({ status: 'completed', answer: 'and nothing else' });
    expect(bed.server.requests.at(-1)!.body.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(await eventCount(source)).toBe(before);
    await fork.handle.terminate('test over');
  });
});

it('forks mid-conversation, after a tool round, and goes on at once with a prompt; the fork records its origin', async () => {
  await withWorker(async (taskQueue) => {
    const source = await finishedSource(taskQueue);
    const before = await eventCount(source);
    bed.server.enqueue(openaiReply({ content: 'a different ending' }));
    const fork = await forkAgent(bed.environment.client, {
      workflowId: source,
      at: 3,
      prompt: 'now say it differently',
      taskQueue,
    });
    expect(fork.reply).toMatchObject({ status: 'completed', answer: 'a different ending' });
    expect(bed.server.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: 'What does alpha.txt say?' },
      { role: 'assistant', content: null, tool_calls: [expect.objectContaining({ id: 'read_1' })] },
      { role: 'tool', tool_call_id: 'read_1', content: 'alpha says hi' },
      { role: 'user', content: 'now say it differently' },
    ]);
    const forkHandle = bed.environment.client.workflow.getHandle(fork.handle.workflowId);
    const description = await forkHandle.describe();
    expect(await forkHandle.query(settingsQuery)).toMatchObject({
      input: { forkedFrom: { workflowId: source, messageIndex: 3 } },
    });
    expect(await description.staticSummary()).toBe(`fork of ${source} at message 3`);
    expect(await description.staticDetails()).toContain(`**forked from** \`${source}\``);
    expect(description.typedSearchAttributes.get(forkedFromSearchAttribute)).toBe(source);
    const listed: string[] = [];
    for await (const run of bed.environment.client.workflow.list({ query: `AgentForkedFrom = "${source}"` }))
      listed.push(run.workflowId);
    expect(listed).toEqual([fork.handle.workflowId]);
    expect(await eventCount(source)).toBe(before);
    await fork.handle.terminate('test over');
  });
});

it('refuses to fork in the middle of a tool round, naming the nearest points, and starts nothing', async () => {
  await withWorker(async (taskQueue) => {
    const source = await finishedSource(taskQueue);
    const refusal = await forkAgent(bed.environment.client, { workflowId: source, at: 2, taskQueue }).catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(InvalidInputError);
    expect((refusal as Error).message).toBe(
      'message 2 is in the middle of a tool round (a tool call without its result): a fork must start where every tool call has its result; the nearest such points are 1 or 3',
    );
    const listed: string[] = [];
    for await (const run of bed.environment.client.workflow.list({ query: `AgentForkedFrom = "${source}"` }))
      listed.push(run.workflowId);
    expect(listed).toEqual([]);
  });
});

it('forks a session that continued as new: the fork has the whole conversation of every run, whose memo and search attributes went on whole', async () => {
  await withWorker(async (taskQueue) => {
    bed.server.enqueue(openaiReply({ content: 'one' }), openaiReply({ content: 'two' }), openaiReply({ content: 'three' }));
    const source = `fork-can-${randomUUID()}`;
    await bed.environment.client.workflow.start(agentWorkflowType, {
      taskQueue,
      workflowId: source,
      args: [
        resolved({
          model: openai,
          workspace: bed.workspace,
          session: { idleTimeoutSeconds: 600 },
          continueAsNewAfterModelCalls: 1,
        }),
      ],
      // A caller's own memo field and search attribute: every run of the chain keeps them (workflows/versioning.ts).
      memo: { callerOwn: 'kept' },
      typedSearchAttributes: [{ key: forkedFromSearchAttribute, value: `origin-of-${source}` }],
    });
    const handle = bed.environment.client.workflow.getHandle(source);
    for (const message of ['first', 'second', 'third']) await sendMessage(handle, message);
    const fork = await forkAgent(bed.environment.client, { workflowId: source, taskQueue });
    const forked = await bed.environment.client.workflow.getHandle(fork.handle.workflowId).query(messagesQuery);
    expect(forked.map((message) => message.content)).toEqual(['first', 'one', 'second', 'two', 'third', 'three']);
    let runs = 0;
    for await (const _run of bed.environment.client.workflow.list({ query: `WorkflowId = "${source}"` })) runs++;
    expect(runs).toBeGreaterThanOrEqual(3);
    const latest = await handle.describe();
    expect(latest.memo).toEqual({ callerOwn: 'kept' });
    expect(latest.typedSearchAttributes.get(forkedFromSearchAttribute)).toBe(`origin-of-${source}`);
    await fork.handle.terminate('test over');
    await handle.terminate('test over');
  });
});

it('agent fork: onto another provider from message 3, with a prompt; agent show numbers the messages', async () => {
  await withWorker(async (taskQueue) => {
    const source = await finishedSource(taskQueue);
    const before = await eventCount(source);
    const env = { ...bed.server.providerEnv, AGENT_TASK_QUEUE: taskQueue };
    const show = await runCli(['show', source], env);
    expect(show.stdout).toContain('#1 [user]\nWhat does alpha.txt say?');
    expect(show.stdout).toContain('#3 [tool read_file read_1]\nalpha says hi');

    bed.server.enqueue(anthropicReply({ text: 'Claude: alpha says hi.' }));
    const fork = await runCli(
      ['fork', source, '--at', '3', '--model', 'anthropic:claude-haiku-4-5', '--prompt', 'Again, briefly', '--json'],
      env,
    );
    expect(fork.code).toBe(0);
    expect(lastJsonLine(fork.stdout)).toMatchObject({
      forkedFrom: { workflowId: source, messageIndex: 3 },
      reply: { status: 'completed', answer: 'Claude: alpha says hi.' },
    });
    // The OpenAI conversation, converted for Anthropic: the tool round as tool_use and tool_result, the tool defined.
    const request = bed.server.requests.at(-1)!;
    expect(request.path).toContain('/messages');
    expect(request.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What does alpha.txt say?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'read_1', name: 'read_file', input: { path: 'alpha.txt' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'read_1', content: 'alpha says hi' },
          { type: 'text', text: 'Again, briefly' },
        ],
      },
    ]);
    expect(request.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['read_file']);

    const refused = await runCli(['fork', source, '--at', '2'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the nearest such points are 1 or 3');
    expect(await eventCount(source)).toBe(before);
  });
});
