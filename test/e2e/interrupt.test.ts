import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AgentResult } from '../../core/result';
import { agentWorkflowType, messagesQuery, statusQuery } from '../../workflows/definitions';
import { collect, lastJsonLine, runCli, spawnCli } from '../support/cli';
import { anthropicReply, openaiReply, type FakeStep } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { readStepLog, slowStepTool, stepHistory } from '../support/slow-step-tool';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { toolResultsSent } from '../support/wire-results';

// `agent interrupt` from another terminal while a session's turn runs: the turn ends at once, what finished is
// kept, what did not is told so, and the session answers the next message. Real SDK clients, strict fake server.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

type Cli = (args: string[]) => ReturnType<typeof runCli>;

async function withSession<T>(
  model: string,
  body: (workflowId: string, cli: Cli, send: (message: string) => ReturnType<typeof collect>, logFile: string) => Promise<T>,
) {
  const logFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'interrupt-')), 'steps.log');
  const taskQueue = uniqueTaskQueue('interrupt');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    tools: [slowStepTool(logFile, 'w1')],
  });
  const env = { ...bed.server.providerEnv, AGENT_TASK_QUEUE: taskQueue };
  const workflowId = `interrupt-${randomUUID()}`;
  return worker.runUntil(async () => {
    await bed.environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [resolved({ model, tools: ['slow_step'], workspace: bed.workspace, session: { idleTimeoutSeconds: 600 } })],
    });
    return body(
      workflowId,
      (args) => runCli(args, env),
      (message) => collect(spawnCli(['send', workflowId, message, '--json'], env, { stdin: 'ignore' })),
      logFile,
    );
  });
}

const stepCalls = (gate: string) => [
  { id: 'call_quick', name: 'slow_step', arguments: { label: 'quick', ms: 0 } },
  { id: 'call_stuck', name: 'slow_step', arguments: { label: 'stuck', ms: 0, waitForFile: gate } },
];

it.each([
  [
    'openai',
    'openai:gpt-4o-mini',
    (gate: string): FakeStep => openaiReply({ content: 'Running both steps.', toolCalls: stepCalls(gate) }),
  ],
  [
    'anthropic',
    'anthropic:claude-haiku-4-5',
    (gate: string): FakeStep => anthropicReply({ text: 'Running both steps.', toolCalls: stepCalls(gate) }),
  ],
] as const)(
  '%s: interrupting mid-tool cancels the unfinished call, keeps the finished result, replies interrupted, and the next message is answered',
  async (_provider, model, reply) => {
    const gate = path.join(await mkdtemp(path.join(os.tmpdir(), 'gate-')), 'never-opened');
    bed.server.enqueue(reply(gate));
    await withSession(model, async (workflowId, cli, send, logFile) => {
      const first = send('run both steps');
      await waitFor('quick finished and stuck started', async () => {
        const steps = stepHistory(await readStepLog(logFile));
        return steps.quick?.includes('finish@w1') && steps.stuck?.includes('start@w1');
      });

      const interrupt = await cli(['interrupt', workflowId]);
      expect(interrupt.code).toBe(0);
      expect(interrupt.stderr).toContain(`interrupted the current turn of ${workflowId}`);

      const reply1 = await first;
      expect(reply1.code).toBe(3);
      expect(lastJsonLine(reply1.stdout)).toMatchObject({ status: 'interrupted', answer: 'Running both steps.', iterations: 1 });
      // The stuck call's activity was cancelled (its abort signal fired, so it never finished) and the turn did not wait for it.
      const events = await fetchEvents(bed.environment.client, workflowId);
      expect(events.filter((event) => event.activityTaskCancelRequestedEventAttributes)).toHaveLength(1);
      expect(stepHistory(await readStepLog(logFile))).toEqual({ quick: ['start@w1', 'finish@w1'], stuck: ['start@w1'] });
      const handle = bed.environment.client.workflow.getHandle(workflowId);
      expect(await handle.query(statusQuery)).toMatchObject({ phase: 'waiting_for_message', toolCallsInFlight: [] });

      bed.server.enqueue(
        model.startsWith('openai')
          ? openaiReply({ content: 'Understood, I stopped.' })
          : anthropicReply({ text: 'Understood, I stopped.' }),
      );
      const reply2 = await send('stop there, please');
      expect(reply2.code).toBe(0);
      expect(lastJsonLine(reply2.stdout)).toMatchObject({ status: 'completed', answer: 'Understood, I stopped.' });
      // The next request carries both calls answered: the finished one with its output, the cut one saying why.
      const results = toolResultsSent(bed.server.requests[1]);
      expect(results).toEqual([
        { id: 'call_quick', content: 'quick done' },
        { id: 'call_stuck', content: expect.stringContaining('not run: the turn was interrupted') },
      ]);
      const messages = await handle.query(messagesQuery);
      expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user', 'assistant']);
    });
  },
);

it('interrupting a model call aborts the request; the session answers the next message with both messages in order', async () => {
  bed.server.enqueue({ hang: true });
  await withSession('openai:gpt-4o-mini', async (workflowId, cli, send) => {
    const first = send('think hard');
    await waitFor('the model request to arrive', () => bed.server.requests.length === 1);

    const interrupt = await cli(['interrupt', workflowId]);
    expect(interrupt.code).toBe(0);
    const reply1 = await first;
    expect(lastJsonLine(reply1.stdout)).toMatchObject({ status: 'interrupted', answer: '', iterations: 0 });
    const events = await fetchEvents(bed.environment.client, workflowId);
    expect(events.filter((event) => event.activityTaskCancelRequestedEventAttributes)).toHaveLength(1);
    await waitFor('the model request to be aborted', () => bed.server.requests[0].abandonedAt !== undefined);

    bed.server.enqueue(openaiReply({ content: 'Fine, a short answer.' }));
    const reply2 = await send('never mind, answer briefly');
    expect(lastJsonLine(reply2.stdout)).toMatchObject({ status: 'completed', answer: 'Fine, a short answer.' });
    const sent = bed.server.requests[1].body.messages as Array<{ role: string; content: string }>;
    expect(sent.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
      'think hard',
      'never mind, answer briefly',
    ]);
  });
});

it('refuses an interrupt when no turn is in progress, and changes nothing', async () => {
  bed.server.enqueue(openaiReply({ content: 'hello' }));
  await withSession('openai:gpt-4o-mini', async (workflowId, cli, send) => {
    expect(lastJsonLine((await send('hi')).stdout)).toMatchObject({ status: 'completed', answer: 'hello' });
    const interrupt = await cli(['interrupt', workflowId]);
    expect(interrupt.code).toBe(1);
    expect(interrupt.stderr).toContain('interrupt refused: no turn is in progress to interrupt');
    const unknown = await cli(['interrupt', `no-such-run-${randomUUID()}`]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/interrupt refused: .*not found/i);
    const handle = bed.environment.client.workflow.getHandle(workflowId);
    expect((await handle.query(messagesQuery)).map((message) => message.role)).toEqual(['user', 'assistant']);
  });
});
