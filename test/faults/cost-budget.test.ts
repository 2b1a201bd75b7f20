import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { defineAgent } from '../../agents/define-agent';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { agentWorkflowType } from '../../workflows/definitions';
import { lastJsonLine, runCli } from '../support/cli';
import { openaiError, openaiReply, type FakeStep } from '../support/fake-model-server';
import { attemptsOf } from '../support/fault-history';
import { fetchEvents } from '../support/history';
import { scriptByAgent } from '../support/script-by-agent';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

// The cost budget through the real model activity (prices from pricing/default-prices.json) and the real
// OpenAI client against the strict fake server. gpt-4o-mini costs $0.15 per million input tokens and $0.60
// per million output tokens; the fake's replies report 20 output tokens and the input tokens each test sets.

const bed = useTestBed();
const model = 'openai:gpt-4o-mini';
const price = (input: number, output: number) => (input * 0.15 + output * 0.6) / 1e6;
afterEach(() => expect(bed.server.refusals).toEqual([]));

async function run(
  input: Omit<AgentInput, 'workspace'>,
  options: { agents?: Parameters<typeof createTestWorker>[1]['agents'] } = {},
) {
  const taskQueue = uniqueTaskQueue('cost');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv, agents: options.agents });
  const workflowId = `cost-${randomUUID()}`;
  const result = await worker.runUntil(
    bed.environment.client.workflow
      .execute<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
        taskQueue,
        workflowId,
        args: [resolved({ workspace: bed.workspace, ...input })],
      })
      .catch((error: unknown) => error),
  );
  return { result, workflowId };
}

const listCall = (id: string) => ({ id, name: 'list_directory', arguments: {} });

/** A Chat Completions answer that was paid for (it reports usage) but that no client can use: it has no choices. */
function paidButUnusable(inputTokens: number, outputTokens: number): FakeStep {
  return {
    json: {
      id: 'chatcmpl-unusable',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'fake-model',
      choices: [],
      usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
    },
  };
}

it('counts every attempt: a paid response whose attempt then failed is in the spend', async () => {
  bed.server.enqueue(
    paidButUnusable(1000, 500),
    openaiError(500, 'The server had an error'),
    openaiReply({ content: 'done', inputTokens: 100 }),
  );
  const { result, workflowId } = await run({ prompt: 'hello', model });
  expect(result).toMatchObject({ status: 'completed', answer: 'done' });
  const { usage } = result as AgentResult;
  expect(usage).toEqual({ inputTokens: 1100, outputTokens: 520, costUsd: expect.closeTo(price(1100, 520), 12) });
  expect(attemptsOf(await fetchEvents(bed.environment.client, workflowId), 'callModel')).toEqual([3]);
});

it('stops cleanly before a model call whose worst case would pass the budget, its tool round answered', async () => {
  bed.server.enqueue(openaiReply({ toolCalls: [listCall('first')], inputTokens: 10_000 }));
  const { result } = await run({ prompt: 'spend it', model, tools: ['list_directory'], maxCostUsd: 0.004 });
  expect(result).toMatchObject({
    status: 'cost_budget',
    usage: { inputTokens: 10_000, outputTokens: 20, costUsd: expect.closeTo(price(10_000, 20), 12) },
  });
  // One call was affordable: $0.0015 spent; the next one's worst case (10,000+ tokens in, 4,096 out) would pass $0.004.
  expect(bed.server.requests).toHaveLength(1);
  // Under a budget every call states its maximum output, so the worst case is a real bound.
  expect(bed.server.requests[0].body.max_completion_tokens).toBe(4096);
});

it("counts parallel subagents' spend against the parent's budget, each child spending from what is left", async () => {
  const researcher = defineAgent({
    name: 'researcher',
    description: 'Researches.',
    instructions: 'You are the researcher.',
    model,
  });
  const writer = defineAgent({ name: 'writer', description: 'Writes.', instructions: 'You are the writer.', model });
  const lead = defineAgent({
    name: 'lead',
    description: 'Leads.',
    instructions: 'You are the lead.',
    model,
    subagents: [researcher, writer],
  });
  scriptByAgent(bed.server, {
    lead: [
      openaiReply({
        toolCalls: [
          { id: 'r', name: 'researcher', arguments: { task: 'research' } },
          { id: 'w', name: 'writer', arguments: { task: 'write' } },
        ],
        inputTokens: 1000,
      }),
    ],
    researcher: [openaiReply({ content: 'found it', inputTokens: 8000 })],
    writer: [openaiReply({ content: 'wrote it', inputTokens: 8000 })],
  });
  const { result, workflowId } = await run({ agent: 'lead', prompt: 'go', maxCostUsd: 0.005 }, { agents: [lead] });
  // The lead spent $0.000162 and each child $0.001212, $0.00259 in all; the lead's next call (about 1,030 tokens in,
  // 4,096 out: $0.0026) no longer fits in $0.005, so it stops there.
  expect(result).toMatchObject({
    status: 'cost_budget',
    agent: 'lead',
    usage: { inputTokens: 17_000, outputTokens: 60, costUsd: expect.closeTo(price(17_000, 60), 12) },
  });
  // Each child was started with what was left of the budget after the lead's first call, and reported its spend.
  for (const callId of ['r', 'w']) {
    const child = bed.environment.client.workflow.getHandle<(input: AgentInput) => Promise<AgentResult>>(
      `${workflowId}/${callId}`,
    );
    const started = (await child.fetchHistory()).events![0].workflowExecutionStartedEventAttributes!;
    const childInput = defaultPayloadConverter.fromPayload(started.input!.payloads![0] as Payload) as AgentInput;
    expect(childInput.maxCostUsd).toBeCloseTo(0.005 - price(1000, 20), 12);
    expect((await child.result()).usage.costUsd).toBeCloseTo(price(8000, 20), 12);
  }
});

it('carries the spend across continue-as-new and enforces the budget in the next run', async () => {
  bed.server.enqueue(
    openaiReply({ toolCalls: [listCall('a')], inputTokens: 5000 }),
    openaiReply({ toolCalls: [listCall('b')], inputTokens: 5000 }),
    openaiReply({ toolCalls: [listCall('c')], inputTokens: 5000 }),
  );
  const { result, workflowId } = await run({
    prompt: 'loop',
    model,
    tools: ['list_directory'],
    maxCostUsd: 0.005,
    continueAsNewAfterModelCalls: 1,
  });
  // Each call costs $0.00076 and the next one's worst case, estimated from the last call's tokens (carried across
  // continue-as-new), is $0.0032: the third fits ($0.00152 + $0.0032 < $0.005), the fourth would not.
  expect(result).toMatchObject({ status: 'cost_budget', usage: { costUsd: expect.closeTo(price(15_000, 60), 12) } });
  expect(bed.server.requests).toHaveLength(3);
  let runs = 0;
  for await (const _execution of bed.environment.client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs++;
  expect(runs).toBeGreaterThanOrEqual(2);
});

describe('a model the price table does not know', () => {
  it('cannot run under a cost budget: the run fails at start, saying so, before any model call', async () => {
    const { result } = await run({ prompt: 'hello', model: 'openai:my-local-model', maxCostUsd: 1 });
    expect(result).toBeInstanceOf(WorkflowFailedError);
    expect((result as WorkflowFailedError).cause).toMatchObject({
      type: 'AgentConfigurationError',
      message: expect.stringContaining(
        'a cost budget needs the price of every model the run may use, and this worker has none for openai:my-local-model',
      ),
    });
    expect(bed.server.requests).toHaveLength(0);
  });

  it('has an unknown cost, shown as such and never as zero', async () => {
    bed.server.enqueue(openaiReply({ toolCalls: [listCall('x')] }), openaiReply({ content: 'done' }));
    const { result } = await run({ prompt: 'hello', model: 'openai:my-local-model', tools: ['list_directory'] });
    expect((result as AgentResult).usage).toEqual({ inputTokens: 200, outputTokens: 40, unpricedCalls: 2 });
  });

  it('is priced once AGENT_PRICES gives it a price', async () => {
    const prices = path.join(await makeWorkspace(), 'prices.json');
    await writeFile(prices, JSON.stringify({ models: { 'openai:my-local-model': { input: 1, output: 2 } } }));
    bed.server.enqueue(openaiReply({ content: 'done', inputTokens: 1_000_000 }));
    const cli = await runCli(
      ['run', 'hello', '--model', 'openai:my-local-model', '--tools', '', '--workspace', bed.workspace, '--json'],
      {
        ...bed.server.providerEnv,
        AGENT_PRICES: prices,
        AGENT_TASK_QUEUE: uniqueTaskQueue('cost-prices'),
      },
    );
    expect(cli.code).toBe(0);
    expect(lastJsonLine(cli.stdout)).toMatchObject({
      usage: { inputTokens: 1_000_000, outputTokens: 20, costUsd: expect.closeTo(1 + 40 / 1e6, 9) },
    });
  });
});

it('agent run --max-cost-usd stops cleanly with status cost_budget and reports the spend', async () => {
  bed.server.enqueue(openaiReply({ toolCalls: [listCall('first')], inputTokens: 10_000 }));
  const cli = await runCli(
    ['run', 'spend it', '--max-cost-usd', '0.004', '--tools', 'list_directory', '--workspace', bed.workspace, '--json'],
    {
      ...bed.server.providerEnv,
      AGENT_TASK_QUEUE: uniqueTaskQueue('cost-cli'),
    },
  );
  expect(cli.code).toBe(3);
  expect(cli.stderr).toContain('run ended with status cost_budget');
  expect(cli.stderr).toContain('10000 input / 20 output tokens, $0.00151');
  expect(lastJsonLine(cli.stdout)).toMatchObject({
    status: 'cost_budget',
    usage: { costUsd: expect.closeTo(price(10_000, 20), 12) },
  });
});
