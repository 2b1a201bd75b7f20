import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { sendMessage } from '../../client/send-message';
import type { CarriedState } from '../../core/carried-state';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import type { StreamEvent } from '../../core/stream-events';
import { maxPromptChars } from '../../core/limits';
import {
  agentWorkflowType,
  endSessionSignal,
  messagesQuery,
  statusQuery,
  steerUpdate,
  streamTailQuery,
} from '../../workflows/definitions';
import {
  anthropicReply,
  openaiReply,
  openaiResponsesReply,
  type FakeStep,
  type FakeToolCall,
} from '../support/fake-model-server';
import { readStepLog, slowStepTool, stepHistory } from '../support/slow-step-tool';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';

// A person steers a session's turn while its tool runs: the turn takes the message after the tool's result, before
// its next model call, and answers it in that turn. The strict fake server refuses any request the real API would
// (afterEach), so each provider's request with the tool result and then the steering message is one its API accepts.

const bed = useTestBed();
jest.setTimeout(180_000);
afterEach(() => expect(bed.server.refusals).toEqual([]));

const steering = 'Not that file, the other one: beta.txt.';

interface Session {
  workflowId: string;
  handle: WorkflowHandle;
  logFile: string;
  gate: string;
}

/** A session on a worker with `slow_step` (held until its gate file exists), running `body`, then ended. */
async function withSession<T>(input: Omit<AgentInput, 'workspace'>, body: (session: Session) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'steer-'));
  const logFile = path.join(directory, 'steps.log');
  const taskQueue = uniqueTaskQueue('steer');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    tools: [slowStepTool(logFile, 'w1')],
  });
  const workflowId = `steer-${randomUUID()}`;
  return worker.runUntil(async () => {
    await bed.environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [resolved({ ...input, workspace: bed.workspace, session: { idleTimeoutSeconds: 600 } })],
    });
    // By workflow id only, as sendMessage wants: it follows the session across continue-as-new.
    const handle = bed.environment.client.workflow.getHandle(workflowId);
    try {
      return await body({ workflowId, handle, logFile, gate: path.join(directory, 'gate') });
    } finally {
      await handle.signal(endSessionSignal);
      await handle.result();
    }
  });
}

const heldStep = (gate: string): FakeToolCall => ({
  id: 'call_step',
  name: 'slow_step',
  arguments: { label: 'alpha', ms: 0, waitForFile: gate },
});

/** Waits until the session holds the steering message (the status counts it among the waiting ones). */
async function steeringAccepted(handle: WorkflowHandle): Promise<void> {
  await waitFor('the steering message accepted', async () => (await handle.query(statusQuery)).queuedMessages === 1);
}

async function streamEvents(handle: WorkflowHandle): Promise<StreamEvent[]> {
  return (await handle.query(streamTailQuery, 0)).events.map(({ event }) => event);
}

/** The last two entries of a request's conversation, in its own wire shape. */
function lastTwo(body: { messages?: unknown[]; input?: unknown[] }): unknown[] {
  return (body.input ?? body.messages ?? []).slice(-2);
}

const providers: Array<[string, string, (gate: string) => FakeStep, FakeStep, unknown[]]> = [
  [
    'anthropic',
    'anthropic:claude-haiku-4-5',
    (gate) => anthropicReply({ text: 'Reading alpha.txt.', toolCalls: [heldStep(gate)] }),
    anthropicReply({ text: 'Switched to beta.txt.' }),
    // Strict alternation: the steering text joins the user message of the tool results, after them.
    [
      { role: 'assistant' },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_step', content: 'alpha done' },
          { type: 'text', text: steering },
        ],
      },
    ],
  ],
  [
    'openai',
    'openai:gpt-4o-mini',
    (gate) => openaiReply({ content: 'Reading alpha.txt.', toolCalls: [heldStep(gate)] }),
    openaiReply({ content: 'Switched to beta.txt.' }),
    [
      { role: 'tool', tool_call_id: 'call_step', content: 'alpha done' },
      { role: 'user', content: steering },
    ],
  ],
  [
    'openai-responses',
    'openai-responses:gpt-4o-mini',
    (gate) => openaiResponsesReply({ content: 'Reading alpha.txt.', toolCalls: [heldStep(gate)] }),
    openaiResponsesReply({ content: 'Switched to beta.txt.' }),
    [
      { type: 'function_call_output', call_id: 'call_step', output: 'alpha done' },
      { role: 'user', content: steering },
    ],
  ],
];

it.each(providers)(
  '%s: a steering message sent while a tool runs joins the turn after the tool result, and the turn answers both',
  async (_provider, model, toolReply, answer, expectedTail) => {
    await withSession({ model, tools: ['slow_step'] }, async ({ handle, logFile, gate }) => {
      bed.server.enqueue(toolReply(gate), answer);
      const asked = sendMessage(handle, 'Read alpha.txt');
      await waitFor('the tool started', async () => stepHistory(await readStepLog(logFile)).alpha?.includes('start@w1'));
      const steered = sendMessage(handle, steering, { steer: true });
      await steeringAccepted(handle);
      await writeFile(gate, '');
      const [reply, steeredReply] = await Promise.all([asked, steered]);

      // One turn answered both: the steering message got the turn's reply, not an answer of its own.
      expect(reply).toMatchObject({ answer: 'Switched to beta.txt.', status: 'completed', iterations: 2 });
      expect(steeredReply).toEqual(reply);
      expect(bed.server.requests).toHaveLength(2);
      // The request after the tool round: the tool's result, then the steering message, never between a call and it.
      expect(lastTwo(bed.server.requests[1].body)).toMatchObject(expectedTail);
      expect(lastTwo(bed.server.requests[0].body)).not.toContainEqual(expect.objectContaining({ content: steering }));

      const messages = await handle.query(messagesQuery);
      expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
      expect(messages[3]).toEqual({ role: 'user', content: steering, steering: true });
      // The stream told watchers where it was taken: turn 1, after its first model call.
      const events = await streamEvents(handle);
      expect(events.filter((event) => event.type === 'steered')).toEqual([
        { type: 'steered', turn: 1, iteration: 1, text: steering },
      ]);
      const order = events.map((event) => event.type).filter((type) => type !== 'text');
      expect(order.indexOf('steered')).toBeGreaterThan(order.indexOf('tool_result'));
      expect(order.indexOf('steered')).toBeLessThan(order.lastIndexOf('reply'));
      expect((await handle.query(statusQuery)).turns).toBe(1);
    });
  },
);

it('a steering message that arrives as the model gives its final answer is answered as the next turn', async () => {
  let answerFirst!: () => void;
  const firstAnswer = new Promise<void>((resolve) => (answerFirst = resolve));
  await withSession({ model: 'openai:gpt-4o-mini' }, async ({ handle }) => {
    bed.server.enqueue(
      { gate: firstAnswer, then: openaiReply({ content: 'alpha.txt says alpha.' }) },
      openaiReply({ content: 'beta.txt says beta.' }),
    );
    const asked = sendMessage(handle, 'What does alpha.txt say?');
    await waitFor('the model call under way', () => bed.server.requests.length === 1);
    const steered = sendMessage(handle, steering, { steer: true });
    await steeringAccepted(handle);
    // The model answers without tools: the turn ends before any iteration could take the steering message.
    answerFirst();
    const [reply, steeredReply] = await Promise.all([asked, steered]);

    expect(reply).toMatchObject({ answer: 'alpha.txt says alpha.', iterations: 1 });
    // Nothing was lost: the next turn answered it, as its own message.
    expect(steeredReply).toMatchObject({ answer: 'beta.txt says beta.', status: 'completed', iterations: 1 });
    expect(bed.server.requests).toHaveLength(2);
    expect(lastTwo(bed.server.requests[1].body)).toEqual([
      { role: 'assistant', content: 'alpha.txt says alpha.' },
      { role: 'user', content: steering },
    ]);
    const messages = await handle.query(messagesQuery);
    expect(messages[messages.length - 2]).toEqual({ role: 'user', content: steering });
    const events = await streamEvents(handle);
    expect(events.some((event) => event.type === 'steered')).toBe(false);

    // A steering message is checked like any message: too long, refused before anything is sent or stored; empty,
    // refused by the session's validator; neither reaches the conversation.
    await expect(sendMessage(handle, 'x'.repeat(maxPromptChars + 1), { steer: true })).rejects.toMatchObject({
      refused: true,
    });
    await expect(handle.executeUpdate(steerUpdate, { args: ['   '] })).rejects.toMatchObject({
      cause: { message: 'message must not be empty' },
    });
    expect(await handle.query(messagesQuery)).toHaveLength(4);
    expect(events.filter((event) => event.type === 'turn_end').map((event) => (event as { answer: string }).answer)).toEqual([
      'alpha.txt says alpha.',
      'beta.txt says beta.',
    ]);
  });
});

it('a steering message waiting when the run continues as new is carried, taken by the next run and answered', async () => {
  await withSession(
    { model: 'anthropic:claude-haiku-4-5', tools: ['slow_step'], continueAsNewAfterModelCalls: 1 },
    async ({ workflowId, handle, logFile, gate }) => {
      bed.server.enqueue(
        anthropicReply({ text: 'Reading alpha.txt.', toolCalls: [heldStep(gate)] }),
        anthropicReply({ text: 'Switched to beta.txt.' }),
      );
      const firstRun = (await handle.describe()).runId;
      const asked = sendMessage(handle, 'Read alpha.txt');
      await waitFor('the tool started', async () => stepHistory(await readStepLog(logFile)).alpha?.includes('start@w1'));
      const steered = sendMessage(handle, steering, { steer: true });
      await steeringAccepted(handle);
      // The tool round ends; the run is due to continue as new before the next model call, with the message waiting.
      await writeFile(gate, '');
      const [reply, steeredReply] = await Promise.all([asked, steered]);

      expect(reply).toMatchObject({ answer: 'Switched to beta.txt.', status: 'completed', iterations: 2 });
      expect(steeredReply).toEqual(reply);
      expect(lastTwo(bed.server.requests[1].body)[1]).toEqual({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_step', content: 'alpha done' },
          { type: 'text', text: steering },
        ],
      });
      // The first run continued as new with the message carried, waiting, and the turn in progress.
      const history = await bed.environment.client.workflow.getHandle(workflowId, firstRun).fetchHistory();
      const continued = history.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!;
      const input = defaultPayloadConverter.fromPayload(continued.input!.payloads![0] as Payload) as { carried: CarriedState };
      expect(input.carried.inbox?.steering).toEqual([{ ticket: 1, content: steering }]);
      expect(input.carried.turn).toBeDefined();
      const events = await streamEvents(handle);
      expect(events.filter((event) => event.type === 'steered')).toEqual([
        { type: 'steered', turn: 1, iteration: 1, text: steering },
      ]);
    },
  );
});
