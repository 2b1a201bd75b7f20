import { randomUUID } from 'node:crypto';
import type { AgentResult, TurnReply } from '../../core/result';
import type { Usage } from '../../core/usage';
import { sendMessage } from '../../client/send-message';
import { agentWorkflowType, endSessionSignal, statusQuery } from '../../workflows/definitions';
import { activityCalls } from '../support/activity-calls';
import { lastJsonLine, runCli } from '../support/cli';
import { providerReply, type FakeProvider } from '../support/fake-model-server';
import { fakeInputTokens } from '../support/wire-rules/prompt-cache';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

// A session that continues as new after every model call (mid-turn, and between turns) must still count every
// call's tokens: the status query, `agent show --json`, each reply and the result sum them over every run, prompt-cache
// reads and writes included (issue 30: after continue-as-new they showed only the latest run's). The fake server
// reports cache counts on each provider's real wire format (./support/wire-rules/prompt-cache.ts).

const bed = useTestBed();
jest.setTimeout(240_000);
afterEach(() => expect(bed.server.refusals).toEqual([]));

const models: Record<FakeProvider, string> = {
  anthropic: 'anthropic:claude-sonnet-4-5',
  openai: 'openai:gpt-4o-mini',
  'openai-responses': 'openai-responses:gpt-4o-mini',
};
// 8,000 characters: 2,000 tokens as the fake counts them, above every cache minimum that applies here.
const systemPrompt = `You answer questions about the files. ${'Rule: be precise, cite the file, keep it short. '.repeat(165)}`;
const questions = ['What does alpha.txt say?', 'And again?', 'Once more?'];
const countNames = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

/** Each message is one tool round (read alpha.txt) and an answer: two model calls, a continue-as-new after each. */
function readThenAnswer(provider: FakeProvider) {
  let calls = 0;
  bed.server.respondWith((request) => {
    const call = ++calls;
    const inputTokens = fakeInputTokens(request.path, request.body);
    return call % 2 === 1
      ? providerReply(provider, {
          toolCalls: [
            { id: `${provider === 'anthropic' ? 'toolu' : 'call'}_${call}`, name: 'read_file', arguments: { path: 'alpha.txt' } },
          ],
          inputTokens,
        })
      : providerReply(provider, { text: `alpha, answer ${call / 2}`, inputTokens });
  });
}

function sum(usages: Usage[]): Record<(typeof countNames)[number], number> {
  return Object.fromEntries(
    countNames.map((name) => [name, usages.reduce((total, usage) => total + (usage[name] ?? 0), 0)]),
  ) as Record<(typeof countNames)[number], number>;
}

describe.each(Object.keys(models) as FakeProvider[])('%s', (provider) => {
  it('sums every run’s tokens, prompt-cache reads and writes included, across continue-as-new', async () => {
    readThenAnswer(provider);
    const workspace = await makeWorkspace({ 'alpha.txt': 'alpha' });
    const taskQueue = uniqueTaskQueue('carried-usage');
    const workflowId = `carried-usage-${provider}-${randomUUID()}`;
    const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
    const { replies, status, shown, result } = await worker.runUntil(async () => {
      const handle = await bed.environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
        taskQueue,
        workflowId,
        args: [
          resolved({
            model: models[provider],
            systemPrompt,
            tools: ['read_file'],
            workspace,
            session: { idleTimeoutSeconds: 600 },
            continueAsNewAfterModelCalls: 1,
          }),
        ],
      });
      const replies: TurnReply[] = [];
      for (const question of questions) replies.push(await sendMessage(handle, question));
      const status = await bed.environment.client.workflow.getHandle(workflowId).query(statusQuery);
      const shown = await runCli(['show', workflowId, '--json'], bed.server.providerEnv);
      await bed.environment.client.workflow.getHandle(workflowId).signal(endSessionSignal);
      const result = await bed.environment.client.workflow.getHandle(workflowId).result();
      return { replies, status, shown, result };
    });

    // What each model call reported, from the history of every run of the session, oldest first.
    const runIds: string[] = [];
    for await (const execution of bed.environment.client.workflow.list({ query: `WorkflowId = "${workflowId}"` }))
      runIds.unshift(execution.runId);
    const callUsages: Usage[] = [];
    for (const runId of runIds) {
      const history = await bed.environment.client.workflow.getHandle(workflowId, runId).fetchHistory();
      for (const call of activityCalls(history.events ?? []))
        if (call.activityType === 'callModel') callUsages.push((call.result as { usage: Usage }).usage);
    }
    expect(callUsages).toHaveLength(2 * questions.length);
    // A continue-as-new after each model call: mid-turn (after the tool round's call) and between turns.
    expect(runIds.length).toBeGreaterThanOrEqual(2 * questions.length);
    const total = sum(callUsages);
    // The cache plays its part: later calls read the conversation's prefix (and Anthropic reports writes; OpenAI none).
    expect(total.cacheReadTokens).toBeGreaterThan(1024 * questions.length);
    if (provider === 'anthropic') expect(total.cacheWriteTokens).toBeGreaterThan(0);

    expect(replies.map((reply) => reply.status)).toEqual(questions.map(() => 'completed'));
    // Each reply's turn spans a continue-as-new: its usage is its two calls', over both runs.
    expect(replies.map((reply) => sum([reply.usage]))).toEqual(
      questions.map((_, turn) => sum(callUsages.slice(2 * turn, 2 * turn + 2))),
    );
    expect(sum([status.usage])).toEqual(total);
    expect(status.usage.cacheReadTokens).toBe(total.cacheReadTokens);
    expect(shown.code).toBe(0);
    expect(sum([(lastJsonLine(shown.stdout) as { usage: Usage }).usage])).toEqual(total);
    expect(shown.stderr).toContain(`${total.cacheReadTokens} input from cache`);
    expect(sum([result.usage])).toEqual(total);
    expect(result.iterations).toBe(callUsages.length);
  });
});
