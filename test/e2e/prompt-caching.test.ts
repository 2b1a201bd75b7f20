import { randomUUID } from 'node:crypto';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult, TurnReply } from '../../core/result';
import { sendMessage } from '../../client/send-message';
import type { StreamEvent } from '../../core/stream-events';
import { agentWorkflowType, streamTailQuery } from '../../workflows/definitions';
import { activityCalls } from '../support/activity-calls';
import { providerReply, type FakeProvider } from '../support/fake-model-server';
import { fakeInputTokens } from '../support/wire-rules/prompt-cache';
import { fetchEvents } from '../support/history';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';

// A session on the dev server, through the real SDK clients and the strict fake server, which models each
// provider's prompt cache: the engine's breakpoints (Anthropic) and prompt_cache_key (OpenAI) make later turns read
// the conversation from the cache, and the cost the run reports is priced at the cache rates.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

const models: Record<FakeProvider, string> = {
  anthropic: 'anthropic:claude-sonnet-4-5',
  openai: 'openai:gpt-4o-mini',
  'openai-responses': 'openai-responses:gpt-4o-mini',
};
// 8,000 characters: 2,000 tokens as the fake counts them, above every minimum that applies here.
const systemPrompt = `You answer questions about the house rules. ${'Rule: be precise, cite the rule, keep it short. '.repeat(165)}`;

/** Replies whose input count is the fake's own count of the request (what a real API reports before any caching). */
function answerEveryMessage(provider: FakeProvider) {
  bed.server.respondWith((request) =>
    providerReply(provider, {
      text: `answer ${bed.server.requests.length}`,
      inputTokens: fakeInputTokens(request.path, request.body),
    }),
  );
}

async function session(
  provider: FakeProvider,
  input: Partial<AgentInput>,
  messages: number,
): Promise<{ replies: TurnReply[]; workflowId: string; events: StreamEvent[] }> {
  const taskQueue = uniqueTaskQueue('prompt-cache');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  return worker.runUntil(async () => {
    const workflowId = `prompt-cache-${randomUUID()}`;
    await bed.environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [
        resolved({
          model: models[provider],
          systemPrompt,
          tools: ['read_file'],
          workspace: bed.workspace,
          session: { idleTimeoutSeconds: 600 },
          ...input,
        }),
      ],
    });
    const handle = bed.environment.client.workflow.getHandle(workflowId);
    const replies: TurnReply[] = [];
    for (let turn = 1; turn <= messages; turn++)
      replies.push(await sendMessage(handle, `Question ${turn}: which rule applies to item ${turn}?`));
    // The run's stream as a follower reads it (the query the CLI's catch-up uses): its usage must carry the cache too.
    const tail = await handle.query(streamTailQuery, 0);
    await handle.terminate('test over');
    return { replies, workflowId, events: tail.events.map(({ event }) => event) };
  });
}

describe.each(Object.keys(models) as FakeProvider[])('%s', (provider) => {
  it('a session reads its earlier turns from the prompt cache, and its later turns cost less than its first', async () => {
    answerEveryMessage(provider);
    const { replies, workflowId, events } = await session(provider, {}, 4);

    expect(replies.map((reply) => reply.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    const [first, ...later] = replies;
    expect(first.usage.cacheReadTokens ?? 0).toBe(0);
    for (const reply of later) {
      expect(reply.usage.cacheReadTokens).toBeGreaterThan(1024);
      // Each later turn reads more of its prompt than it pays full price for, so it costs less than the first turn,
      // whose prompt was shorter.
      expect(reply.usage.inputTokens).toBeGreaterThan(first.usage.inputTokens);
      expect(reply.usage.costUsd).toBeLessThan(first.usage.costUsd!);
    }
    // The stream tells the same counts, apart from the rest of the input, in each model call's reply and each turn's
    // end. A session's stream keeps its latest turns only: compare those.
    const turnEnds = events.flatMap((event) => (event.type === 'turn_end' ? [event] : []));
    const modelReplies = events.flatMap((event) => (event.type === 'reply' ? [event] : []));
    const kept = replies.slice(-turnEnds.length);
    expect(turnEnds.length).toBeGreaterThanOrEqual(2);
    for (const streamed of [turnEnds, modelReplies])
      expect(streamed.map(({ usage }) => [usage?.cacheReadTokens, usage?.cacheWriteTokens])).toEqual(
        kept.map(({ usage }) => [usage.cacheReadTokens, usage.cacheWriteTokens]),
      );
    expect(kept.every((reply) => reply.usage.cacheReadTokens! > 1024)).toBe(true);
    // What each model activity returned is in history: the reads are recorded there, not recomputed.
    const calls = activityCalls(await fetchEvents(bed.environment.client, workflowId)).filter(
      (call) => call.activityType === 'callModel',
    );
    expect(calls).toHaveLength(4);
    if (provider === 'anthropic') {
      expect(bed.server.requests.every((request) => JSON.stringify(request.body).includes('cache_control'))).toBe(true);
      expect(first.usage.cacheWriteTokens).toBeGreaterThan(2000);
    } else {
      const keys = new Set(bed.server.requests.map((request) => request.body.prompt_cache_key));
      expect(keys.size).toBe(1);
      expect([...keys][0]).toMatch(/^durable-agent-[0-9a-f]{40}$/);
    }
  });

  it('keeps reading the cache across continue-as-new: the placement and the key come from the request, not the run', async () => {
    answerEveryMessage(provider);
    const { replies, workflowId } = await session(provider, { continueAsNewAfterModelCalls: 2 }, 5);

    const runs: string[] = [];
    for await (const execution of bed.environment.client.workflow.list({ query: `WorkflowId = "${workflowId}"` }))
      runs.push(execution.runId);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const reply of replies.slice(1)) expect(reply.usage.cacheReadTokens).toBeGreaterThan(1024);
    if (provider !== 'anthropic')
      expect(new Set(bed.server.requests.map((request) => request.body.prompt_cache_key)).size).toBe(1);
  });

  it('with promptCache off the same session reads nothing from the cache and costs more', async () => {
    answerEveryMessage(provider);
    const cached = await session(provider, {}, 3);
    const cachedCost = cached.replies.reduce((sum, reply) => sum + reply.usage.costUsd!, 0);
    bed.server.reset();
    answerEveryMessage(provider);
    const uncached = await session(provider, { modelSettings: { promptCache: 'off' } }, 3);
    const uncachedCost = uncached.replies.reduce((sum, reply) => sum + reply.usage.costUsd!, 0);

    expect(uncached.replies.every((reply) => reply.usage.cacheReadTokens === undefined)).toBe(true);
    expect(JSON.stringify(bed.server.requests.map((request) => request.body))).not.toMatch(/cache_control|prompt_cache_key/);
    expect(cachedCost).toBeLessThan(uncachedCost);
  });
});
