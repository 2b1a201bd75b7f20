import { Context } from '@temporalio/activity';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult, TurnReply } from '../../core/result';
import { agentWorkflowType, endSessionSignal, messagesQuery, sendMessageUpdate, statusQuery } from '../../workflows/definitions';
import { fetchEvents } from '../support/history';
import { scriptedModel, type ScriptedModel } from 'durable-agent/testing';
import { connectToTestServer, createTestWorker, uniqueTaskQueue, resolved } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

const EventType = temporal.api.enums.v1.EventType;

let environment: TestWorkflowEnvironment;
let workspace: string;
beforeAll(async () => {
  environment = await connectToTestServer();
  workspace = await makeWorkspace({ 'notes.txt': 'remember the milk' });
});
afterAll(() => environment?.teardown());

async function withSession<T>(
  model: ScriptedModel,
  input: Partial<AgentInput>,
  body: (workflowId: string) => Promise<T>,
): Promise<T> {
  const taskQueue = uniqueTaskQueue('session');
  const worker = await createTestWorker(environment, { taskQueue, model });
  const workflowId = `session-${Date.now()}-${Math.random().toString(16).slice(2)}`;
  return worker.runUntil(async () => {
    await environment.client.workflow.start<(input: AgentInput) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [
        resolved({ model: 'scripted:test', tools: ['read_file'], workspace, session: { idleTimeoutSeconds: 600 }, ...input }),
      ],
    });
    return body(workflowId);
  });
}

const send = (workflowId: string, message: string) =>
  environment.client.workflow.getHandle(workflowId).executeUpdate(sendMessageUpdate, { args: [message] }) as Promise<TurnReply>;

describe('sessions', () => {
  it('answers each message with an update and ends on request with the whole transcript kept', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }], usage: { inputTokens: 20, outputTokens: 8 } },
      'milk',
      'you are welcome',
    ]);
    const result = await withSession(model, {}, async (workflowId) => {
      expect(await send(workflowId, 'what should I remember?')).toEqual({
        answer: 'milk',
        status: 'completed',
        agent: 'default',
        iterations: 2,
        usage: { inputTokens: 30, outputTokens: 13, unpricedCalls: 2 },
      });
      expect(await send(workflowId, 'thanks')).toMatchObject({ answer: 'you are welcome', iterations: 1 });
      const handle = environment.client.workflow.getHandle(workflowId);
      expect((await handle.query(messagesQuery)).map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'user',
        'assistant',
      ]);
      expect(await handle.query(statusQuery)).toMatchObject({
        phase: 'waiting_for_message',
        turns: 2,
        usage: { inputTokens: 40, outputTokens: 18 },
      });
      await handle.signal(endSessionSignal);
      return handle.result();
    });
    expect(result).toEqual({
      answer: 'you are welcome',
      status: 'ended',
      agent: 'default',
      iterations: 3,
      turns: 2,
      usage: { inputTokens: 40, outputTokens: 18, unpricedCalls: 3 },
    });
    expect(model.requests[2].messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'milk', toolCalls: [] },
      { role: 'user', content: 'thanks' },
    ]);
  });

  it('rejects empty and oversized messages in the validator and keeps going', async () => {
    const model = scriptedModel(['fine']);
    await withSession(model, {}, async (workflowId) => {
      await expect(send(workflowId, '   ')).rejects.toThrow(WorkflowUpdateFailedError);
      const oversized = await send(workflowId, 'x'.repeat(300_000)).catch(
        (error: WorkflowUpdateFailedError) => error.cause?.message,
      );
      expect(oversized).toMatch(/message is 300000 characters; at most \d+ are accepted/);
      expect(await send(workflowId, 'ok?')).toMatchObject({ answer: 'fine' });
      expect(model.requests).toHaveLength(1);
    });
  });

  it('queues a message sent during a turn and answers the messages in order', async () => {
    let releaseFirst: () => void = () => {};
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const model = scriptedModel([
      async () => {
        await firstHeld;
        return 'first answer';
      },
      'second answer',
    ]);
    await withSession(model, {}, async (workflowId) => {
      const first = send(workflowId, 'first');
      await waitFor('the first message at the model', () => model.requests.length > 0);
      const second = send(workflowId, 'second');
      // While the first is held, the second waits in the queue.
      const status = await waitFor('the second message in the queue', async () => {
        const current = await environment.client.workflow.getHandle(workflowId).query(statusQuery);
        return current.queuedMessages > 0 && current;
      });
      expect(status).toMatchObject({ queuedMessages: 1 });
      releaseFirst();
      expect((await first).answer).toBe('first answer');
      expect((await second).answer).toBe('second answer');
      expect(model.requests[1].messages.map((message) => message.content)).toEqual(['first', 'first answer', 'second']);
    });
  });

  it('tells every caller still waiting when the session is cancelled that its message was not answered', async () => {
    const model = scriptedModel([
      async () => {
        await Context.current().cancelled;
        return 'never';
      },
    ]);
    await withSession(model, {}, async (workflowId) => {
      const handle = environment.client.workflow.getHandle(workflowId);
      const first = send(workflowId, 'first').catch((error: unknown) => error);
      await waitFor('the first message at the model', () => model.requests.length > 0);
      const second = send(workflowId, 'second').catch((error: unknown) => error);
      await waitFor('the second message in the queue', async () => (await handle.query(statusQuery)).queuedMessages > 0);
      await handle.cancel();
      for (const refused of [await first, await second]) {
        expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
        expect((refused as WorkflowUpdateFailedError).cause?.message).toBe(
          'the run was cancelled before this message was answered',
        );
      }
      await expect(handle.result()).rejects.toThrow(/cancel/i);
    });
  });

  it('ends an idle session after its idle timeout', async () => {
    const result = await withSession(scriptedModel([]), { session: { idleTimeoutSeconds: 1 } }, (workflowId) =>
      environment.client.workflow.getHandle(workflowId).result(),
    );
    expect(result).toMatchObject({ status: 'idle_timeout', turns: 0 });
  });

  it('keeps one idle timer across messages, and idles out a whole timeout after the last one', async () => {
    const model = scriptedModel(['one', 'two']);
    const { result, events, lastReplyAt } = await withSession(
      model,
      { session: { idleTimeoutSeconds: 2 } },
      async (workflowId) => {
        await send(workflowId, 'a');
        // Past the first timer's deadline (2 s after the session began waiting), which must not end the session.
        await new Promise((resolve) => setTimeout(resolve, 1_200));
        await send(workflowId, 'b');
        const lastReplyAt = Date.now();
        const handle = environment.client.workflow.getHandle(workflowId);
        return {
          result: (await handle.result()) as AgentResult,
          events: await fetchEvents(environment.client, workflowId),
          lastReplyAt,
        };
      },
    );
    expect(result).toMatchObject({ status: 'idle_timeout', answer: 'two' });
    const closedAt = Number(events.at(-1)!.eventTime!.seconds) * 1000 + Math.floor(events.at(-1)!.eventTime!.nanos! / 1e6);
    // A whole timeout after the last wait began, give or take that reply's trip to the client; expiring at the
    // first timer's end (2 s after the first wait) would have closed it ~0.4 s after the last reply.
    expect(closedAt - lastReplyAt).toBeGreaterThanOrEqual(1_500);
    const count = (type: number) => events.filter((event) => event.eventType === type).length;
    // No timer per awaited message (three waits here), none cancelled: each timer runs out, and the next one
    // runs for the time left (two in all, or three if the first fired during the pause).
    expect(count(EventType.EVENT_TYPE_TIMER_CANCELED)).toBe(0);
    expect(count(EventType.EVENT_TYPE_TIMER_FIRED)).toBe(count(EventType.EVENT_TYPE_TIMER_STARTED));
    expect(count(EventType.EVENT_TYPE_TIMER_STARTED)).toBeGreaterThanOrEqual(2);
    expect(count(EventType.EVENT_TYPE_TIMER_STARTED)).toBeLessThanOrEqual(3);
    expect(events.some((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch')).toBe(true);
  });

  it('goes on from a run of older code whose carried state still holds progressOffset and progress', async () => {
    const model = scriptedModel(['later']);
    const taskQueue = uniqueTaskQueue('session');
    const worker = await createTestWorker(environment, { taskQueue, model });
    const workflowId = `session-carried-${Date.now()}`;
    const earlier = [
      { role: 'user' as const, content: 'earlier' },
      { role: 'assistant' as const, content: 'earlier answer', toolCalls: [] },
    ];
    // What continue-as-new carried before the progress query went: where its events began, and (older still) the events.
    const carried = {
      messages: earlier,
      usage: { inputTokens: 10, outputTokens: 5 },
      iteration: 1,
      turns: 1,
      transcript: { length: 0 },
      progressOffset: 3,
      progress: [
        { kind: 'model_call', iteration: 1, model: 'openai:test', toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 } },
      ],
      lastAnswer: 'earlier answer',
      agent: 'default',
    };
    await worker.runUntil(async () => {
      const handle = await environment.client.workflow.start(agentWorkflowType, {
        taskQueue,
        workflowId,
        args: [{ ...resolved({ model: 'scripted:test', workspace, session: { idleTimeoutSeconds: 600 } }), carried }],
      });
      expect(await send(workflowId, 'and now?')).toMatchObject({ answer: 'later', iterations: 1 });
      expect(await handle.query(statusQuery)).toMatchObject({ turns: 2, iteration: 2 });
      await handle.signal(endSessionSignal);
      expect(await handle.result()).toMatchObject({ status: 'ended', turns: 2 });
    });
    expect(model.requests[0].messages.filter((message) => message.role !== 'system')).toEqual([
      ...earlier,
      { role: 'user', content: 'and now?' },
    ]);
  });

  it('refuses messages to a run that is not a session', async () => {
    const taskQueue = uniqueTaskQueue('not-session');
    // The model's answer is held until the refusal is in: the run is still running when the message comes.
    let releaseAnswer!: () => void;
    const answerHeld = new Promise<void>((resolve) => (releaseAnswer = resolve));
    const model = scriptedModel([
      async () => {
        await answerHeld;
        return 'done';
      },
    ]);
    const worker = await createTestWorker(environment, { taskQueue, model });
    await worker.runUntil(async () => {
      const handle = await environment.client.workflow.start(agentWorkflowType, {
        taskQueue,
        workflowId: `one-shot-${Date.now()}`,
        args: [resolved({ prompt: 'hi', model: 'scripted:test', workspace })],
      });
      const refusal = await handle
        .executeUpdate(sendMessageUpdate, { args: ['more'] })
        .catch((error: WorkflowUpdateFailedError) => error.cause?.message);
      expect(refusal).toMatch(/not a session/);
      releaseAnswer();
      await handle.result();
    });
  });

  it('ends the session cleanly when the token budget is spent', async () => {
    const model = scriptedModel(['one', 'two']);
    const result = await withSession(model, { maxSessionTokens: 20 }, async (workflowId) => {
      expect(await send(workflowId, 'a')).toMatchObject({ status: 'completed' });
      expect(await send(workflowId, 'b')).toMatchObject({ status: 'token_budget', answer: 'two' });
      return environment.client.workflow.getHandle(workflowId).result();
    });
    expect(result).toMatchObject({ status: 'token_budget', turns: 2, usage: { inputTokens: 20, outputTokens: 10 } });
  });

  it('closes the tool calls of the reply that spends the token budget with "not run" results', async () => {
    const model = scriptedModel([
      {
        toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' }, id: 'over_budget' }],
        usage: { inputTokens: 20, outputTokens: 8 },
      },
    ]);
    const messages = await withSession(model, { maxSessionTokens: 20 }, async (workflowId) => {
      expect(await send(workflowId, 'read it')).toMatchObject({ status: 'token_budget' });
      return environment.client.workflow.getHandle(workflowId).query(messagesQuery);
    });
    expect(messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'over_budget',
      toolName: 'read_file',
      content: 'Error: not run: the token budget of this run is spent',
      isError: true,
    });
  });
});
