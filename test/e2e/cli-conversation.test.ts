import { randomUUID } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { sendMessage } from '../../client/send-message';
import { agentWorkflowType } from '../../workflows/definitions';
import { collect, lastJsonLine, runCli, spawnCli } from '../support/cli';
import { providerError, providerReply, type FakeProvider } from '../support/fake-model-server';
import { createTestWorker, resolved, testWorkspaceRoot, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';

// The conversation faults of test/faults/conversation-faults.test.ts, through the CLI a user types:
// `agent run`, `agent chat` and `agent send`, with both providers, against the strict fake server.

const bed = useTestBed();
const models: Record<FakeProvider, string> = {
  openai: 'openai:gpt-4o-mini',
  'openai-responses': 'openai-responses:o4-mini',
  anthropic: 'anthropic:claude-haiku-4-5',
};
const listCall = (id: string) => ({ id, name: 'list_directory', arguments: {} });

afterEach(() => expect(bed.server.refusals).toEqual([]));

/** A worker in this process polls a fresh task queue while `body` drives the CLI against it. */
async function withWorker<T>(
  body: (cli: (args: string[]) => ReturnType<typeof runCli>, taskQueue: string, worker: Worker) => Promise<T>,
): Promise<T> {
  const taskQueue = uniqueTaskQueue('cli-conversation');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const cli = (args: string[]) => runCli(args, { ...bed.server.providerEnv, AGENT_TASK_QUEUE: taskQueue });
  return worker.runUntil(() => body(cli, taskQueue, worker));
}

async function startSession(taskQueue: string, input: Omit<AgentInput, 'workspace'>) {
  const workflowId = `cli-conversation-${randomUUID()}`;
  await bed.environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
    taskQueue,
    workflowId,
    args: [
      resolved({
        tools: ['read_file', 'list_directory'],
        workspace: bed.workspace,
        session: { idleTimeoutSeconds: 600 },
        ...input,
      }),
    ],
  });
  return bed.environment.client.workflow.getHandle<(input: unknown) => Promise<AgentResult>>(workflowId);
}

describe.each<FakeProvider>(['openai', 'anthropic'])('%s', (provider) => {
  const model = models[provider];

  it('agent run: ends at the iteration limit with the closing reflection as the answer, exit 3', async () => {
    bed.server.respondWith((request) =>
      request.body.tool_choice
        ? providerReply(provider, { text: 'I listed it twice.' })
        : providerReply(provider, { toolCalls: [listCall(`c_${randomUUID().slice(0, 8)}`)] }),
    );
    const run = await withWorker((cli) =>
      cli(['run', 'keep listing', '--model', model, '--max-iterations', '2', '--workspace', bed.workspace, '--json']),
    );
    expect(run.code).toBe(3);
    expect(lastJsonLine(run.stdout)).toMatchObject({ status: 'max_iterations', answer: 'I listed it twice.', iterations: 2 });
  });

  it('agent run: --max-context-tokens and --keep-recent-turns summarise older turns', async () => {
    bed.server.enqueue(
      providerReply(provider, { toolCalls: [listCall('s1')], inputTokens: 10 }),
      providerReply(provider, { toolCalls: [listCall('s2')], inputTokens: 100 }),
      providerReply(provider, { text: 'the summary' }),
      providerReply(provider, { text: 'done' }),
    );
    const run = await withWorker((cli) =>
      cli([
        'run',
        'summarise',
        '--model',
        model,
        '--max-context-tokens',
        '50',
        '--keep-recent-turns',
        '1',
        '--workspace',
        bed.workspace,
      ]),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('done\n');
    expect(bed.server.requests).toHaveLength(4);
    expect(bed.server.requests[2].body.tool_choice).toBeDefined();
    expect(JSON.stringify(bed.server.requests[3].body.messages)).toContain('the summary');
  });

  it('agent chat: a message the provider rejects is reported with its words, and the next one is answered', async () => {
    bed.server.enqueue(
      providerError(provider, 400, 'prompt is too long: 250000 tokens > 200000 maximum'),
      providerReply(provider, { text: 'short answer' }),
    );
    const chat = await withWorker(async (_cli, taskQueue) => {
      const child = spawnCli(['chat', '--model', model, '--workspace', bed.workspace], {
        ...bed.server.providerEnv,
        AGENT_TASK_QUEUE: taskQueue,
      });
      const finished = collect(child);
      child.stdin!.write('a very long message\n');
      await waitFor('the rejected request', () => bed.server.requests.length === 1);
      child.stdin!.end('a short one\n');
      return finished;
    });
    expect(chat.stdout).toBe('short answer\n');
    expect(chat.stderr).toContain(
      `message failed: ${provider} rejected the request (HTTP 400): prompt is too long: 250000 tokens > 200000 maximum`,
    );
    expect(chat.stderr).toMatch(/session \S+ ended: 1 message\(s\)/);
    expect(chat.code).toBe(1);
    expect(JSON.stringify(bed.server.requests[1].body.messages)).not.toContain('a very long message');
  });

  it('agent send: a rejected turn exits 1 with the provider message; truncated and refused turns close their tool calls; the session goes on', async () => {
    bed.server.enqueue(
      providerError(provider, 400, 'prompt is too long'),
      providerReply(provider, { text: 'partial', toolCalls: [listCall('cut_1')], finish: 'length' }),
      providerReply(provider, { text: 'I cannot help with that', toolCalls: [listCall('refused_1')], finish: 'refusal' }),
      providerReply(provider, { text: 'third answer' }),
    );
    const [rejected, truncated, refused, third] = await withWorker(async (cli, taskQueue) => {
      const handle = await startSession(taskQueue, { model });
      const outcomes = [];
      for (const message of ['first', 'second', 'refuse this', 'third'])
        outcomes.push(await cli(['send', handle.workflowId, message, '--json']));
      await handle.terminate('test over');
      return outcomes;
    });
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain(`message failed: ${provider} rejected the request (HTTP 400): prompt is too long`);
    expect(lastJsonLine(rejected.stdout)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('prompt is too long'),
    });
    expect(truncated.code).toBe(3);
    expect(lastJsonLine(truncated.stdout)).toMatchObject({ status: 'truncated', answer: 'partial' });
    expect(refused.code).toBe(3);
    expect(lastJsonLine(refused.stdout)).toMatchObject({ status: 'refused', answer: 'I cannot help with that' });
    expect(third.code).toBe(0);
    expect(lastJsonLine(third.stdout)).toMatchObject({ status: 'completed', answer: 'third answer' });
    expect(JSON.stringify(bed.server.requests[2].body.messages)).toContain(
      'not run: the reply was cut at the output-token limit',
    );
    expect(JSON.stringify(bed.server.requests[3].body.messages)).toContain('not run: the reply was refused');
  });

  it('agent send: the reply of a turn that spans a continue-as-new reaches the caller', async () => {
    bed.server.enqueue(
      ...['l1', 'l2', 'l3'].map((id) => providerReply(provider, { toolCalls: [listCall(id)] })),
      providerReply(provider, { text: 'listed three times' }),
    );
    const send = await withWorker(async (cli, taskQueue) => {
      const handle = await startSession(taskQueue, { model: model, continueAsNewAfterModelCalls: 2 });
      const send = await cli(['send', handle.workflowId, 'list three times', '--json']);
      await handle.terminate('test over');
      return send;
    });
    expect(send.code).toBe(0);
    expect(lastJsonLine(send.stdout)).toMatchObject({ status: 'completed', answer: 'listed three times', iterations: 4 });
    expect(bed.server.requests).toHaveLength(4);
  });

  it('agent send: messages queued behind a turn that spends the token budget get that answer, exit 3', async () => {
    let release: () => void = () => {};
    bed.server.enqueue({
      gate: new Promise<void>((resolve) => (release = resolve)),
      then: providerReply(provider, { text: 'all of it' }),
    });
    const sends = await withWorker(async (cli, taskQueue) => {
      const handle = await startSession(taskQueue, { model: model, prompt: 'spend it', maxSessionTokens: 10 });
      await waitFor('the first model request', () => bed.server.requests.length === 1);
      const sends = [cli(['send', handle.workflowId, 'one', '--json']), cli(['send', handle.workflowId, 'two', '--json'])];
      await waitFor(
        'both messages to be queued',
        async () => ((await handle.query('status')) as { queuedMessages: number }).queuedMessages === 2,
        {
          timeoutMs: 60_000,
        },
      );
      release();
      return Promise.all(sends);
    });
    for (const send of sends) {
      expect(send.code).toBe(3);
      expect(lastJsonLine(send.stdout)).toMatchObject({ status: 'token_budget', answer: '' });
    }
  });
});

it('agent send: with ten messages already in flight, says at once why the message was not taken', async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  bed.server.respondWith((_request, index) =>
    index === 0 ? { gate, then: providerReply('openai', { text: 'first' }) } : providerReply('openai', { text: 'next' }),
  );
  const send = await withWorker(async (cli, taskQueue) => {
    const handle = await startSession(taskQueue, { model: models.openai });
    const inFlight = Array.from({ length: 10 }, (_, index) => sendMessage(handle, `message ${index}`));
    await waitFor(
      'ten messages in flight',
      async () => ((await handle.query('status')) as { queuedMessages: number }).queuedMessages === 9,
    );
    const send = await cli(['send', handle.workflowId, 'the eleventh']);
    release();
    await Promise.all(inFlight);
    await handle.terminate('test over');
    return send;
  });
  expect(send.code).toBe(1);
  expect(send.stderr).toContain('message not accepted: the session already has 10 messages waiting for their replies');
});

describe('the workspace root', () => {
  it('agent run refuses a workspace outside the root, / included, before it starts anything, a worker standing', async () => {
    const run = await withWorker((cli) => cli(['run', 'hello', '--workspace', '/']));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `error: workspace "/" is outside the workspace root "${testWorkspaceRoot}" (AGENT_WORKSPACE_ROOT, else the directory the command runs in; symlinks resolved)`,
    );
    expect(run.stderr).not.toContain('started');
    expect(bed.server.requests).toHaveLength(0);
  });

  it("the CLI's own worker serves the directory it was run in, and nothing outside it", async () => {
    // No worker polls this queue: the CLI runs one, whose root is the directory the command ran in.
    const run = await runCli(['run', 'hello', '--workspace', bed.workspace], {
      ...bed.server.providerEnv,
      AGENT_TASK_QUEUE: uniqueTaskQueue('cli-root'),
      AGENT_WORKSPACE_ROOT: '',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /error: workspace "\S+" is outside the workspace root "\S+" \(AGENT_WORKSPACE_ROOT, else the directory/,
    );
    expect(bed.server.requests).toHaveLength(0);
  });
});
