import type { Worker } from '@temporalio/worker';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { startAgent } from '../../client/start-agent';
import { agentStreamTopic, type StreamEvent } from '../../core/stream-events';
import { endSessionSignal, sendMessageUpdate } from '../../workflows/definitions';
import { anthropicBlocksReply, providerReply, type FakeAnthropicBlock, type FakeProvider } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { createTestWorker, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';

const bed = useTestBed();

const sentence = 'The quick brown fox jumps over the lazy dog, and then it naps in the warm afternoon sun.';
const models: Record<FakeProvider, string> = {
  openai: 'openai:gpt-4o-mini',
  'openai-responses': 'openai-responses:gpt-5-mini',
  anthropic: 'anthropic:claude-haiku-4-5',
};

async function withWorker<T>(body: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = uniqueTaskQueue('streaming');
  const worker: Worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  return worker.runUntil(() => body(taskQueue));
}

describe.each(Object.keys(models) as FakeProvider[])('streaming through the real %s client', (provider) => {
  it('calls the API in streaming mode and publishes the text as it is written, then the whole reply', async () => {
    // Word by word, 40 ms apart: about a second of writing, published in batches.
    bed.server.enqueue({ ...providerReply(provider, { text: sentence }), stream: { intervalMs: 40 } });
    const { events, reply } = await withWorker(async (taskQueue) => {
      const handle = await startAgent(
        bed.environment.client,
        { model: models[provider], tools: [], workspace: bed.workspace, session: { idleTimeoutSeconds: 600 }, stream: true },
        { taskQueue },
      );
      const subscription = WorkflowStreamClient.create(bed.environment.client, handle.workflowId)
        .topic<StreamEvent>(agentStreamTopic)
        .subscribe(0);
      const reply = handle.executeUpdate(sendMessageUpdate, { args: ['tell me about the fox'] });
      const events: StreamEvent[] = [];
      for await (const item of subscription) {
        events.push(item.data);
        if (item.data.type === 'turn_end') break;
      }
      await handle.signal(endSessionSignal);
      return { events, reply: await reply };
    });
    expect(bed.server.refusals).toEqual([]);
    const body = bed.server.requests[0].body;
    expect(body.stream).toBe(true);
    if (provider === 'openai') expect(body.stream_options).toEqual({ include_usage: true });
    const texts = events.flatMap((event) => (event.type === 'text' ? [event.text] : []));
    // Coalesced: more than one batch, far fewer than one event per word.
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.length).toBeLessThan(sentence.split(' ').length);
    expect(texts.join('')).toBe(sentence);
    const types = events.map((event) => event.type);
    expect(types.lastIndexOf('text')).toBeLessThan(types.indexOf('reply'));
    expect(events.find((event) => event.type === 'reply')).toMatchObject({ text: sentence, toolCalls: [] });
    // The whole response reached the workflow as without streaming, tokens included.
    expect(reply).toMatchObject({ answer: sentence, status: 'completed' });
    expect((reply as { usage: { inputTokens: number } }).usage.inputTokens).toBeGreaterThan(0);
  });

  it('assembles tool calls from the stream as the API sends them', async () => {
    bed.server.enqueue(
      providerReply(provider, { text: 'Let me look.', toolCalls: [{ id: 'call_1', name: 'list_directory', arguments: {} }] }),
      providerReply(provider, { text: 'Nothing here.' }),
    );
    const result = await withWorker(async (taskQueue) => {
      const handle = await startAgent(
        bed.environment.client,
        { model: models[provider], tools: ['list_directory'], workspace: bed.workspace, prompt: 'what is here?', stream: true },
        { taskQueue },
      );
      return handle.result();
    });
    expect(bed.server.refusals).toEqual([]);
    expect(bed.server.requests.every((request) => request.body.stream === true)).toBe(true);
    expect(result).toMatchObject({ answer: 'Nothing here.', status: 'completed', iterations: 2 });
  });
});

/**
 * Streams one Anthropic reply of these blocks, written as fast as the socket takes them, into a streamed session; its
 * answer and its history's signals. No pacing: how many 200 ms batches a paced reply fills depends on how busy the
 * machine is, while a publisher that signals per change of kind signals per block however fast the blocks come.
 */
async function signalsOfStreamedReply(blocks: FakeAnthropicBlock[]): Promise<{ answer: unknown; signals: number }> {
  bed.server.enqueue({ ...anthropicBlocksReply(blocks), stream: {} });
  const { workflowId, reply } = await withWorker(async (taskQueue) => {
    const handle = await startAgent(
      bed.environment.client,
      {
        model: models.anthropic,
        tools: [],
        workspace: bed.workspace,
        modelSettings: { thinkingBudget: 2048 },
        session: { idleTimeoutSeconds: 600 },
        stream: true,
      },
      { taskQueue },
    );
    const reply = await handle.executeUpdate(sendMessageUpdate, { args: ['think aloud'] });
    await handle.signal(endSessionSignal);
    await handle.result();
    return { workflowId: handle.workflowId, reply };
  });
  const events = await fetchEvents(bed.environment.client, workflowId);
  return {
    answer: (reply as { answer: unknown }).answer,
    signals: events.filter((event) => event.workflowExecutionSignaledEventAttributes).length,
  };
}

it('a model that alternates thinking and text on every piece costs no signal per piece: the batch is one signal', async () => {
  // The attack: interleaved thinking, 120 one-word blocks alternating thinking and text. A publisher that sent a
  // signal at every change of kind wrote a history event per block (121 signals, measured), at any pace.
  const alternating: FakeAnthropicBlock[] = Array.from({ length: 120 }, (_, index) =>
    index % 2 === 0 ? { thinking: `t${index}` } : { text: `w${index} ` },
  );
  const attack = await signalsOfStreamedReply(alternating);
  expect(bed.server.refusals).toEqual([]);
  expect(attack.answer).toBe(alternating.flatMap((block) => ('text' in block ? [block.text] : [])).join(''));
  // The end-session signal and a few 200 ms batches; a signal per block would be 120 and more. The bound leaves room
  // for a busy machine reading the reply slowly (30 batches is six seconds of reading).
  expect(attack.signals).toBeLessThan(alternating.length / 4);
});
