import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { z } from 'zod';
import { defineAgent } from '../../agents/define-agent';
import { defineTool } from '../../tools/define-tool';
import { createAgentTestEnv, expectHistoriesToReplay, HistoryReplayError, scriptedModel } from '../../testing';
import { ensureTestServer } from '../support/test-server/find-test-server';

// The replay helper of durable-agent/testing on a user's own workflow: a run recorded with one version of the code
// (written as `agent history --out` writes it) replays against the same code, and fails, naming the event and what
// differed, against a workflow changed without a patch.

const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Looks an order up by its id.',
  input: z.object({ id: z.string() }),
  handler: async ({ id }) => JSON.stringify({ id, status: 'shipped' }),
});
const support = defineAgent({
  name: 'support',
  description: 'Answers customers.',
  instructions: 'You are support.',
  model: 'openai:gpt-4o-mini',
  tools: [lookupOrder],
});
const fixtures = path.join(__dirname, '..', 'fixtures', 'testing-kit');
const bundle = (file: string): Promise<WorkflowBundle> =>
  bundleWorkflowCode({ workflowsPath: path.join(fixtures, file), logger: quietLogger });
const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

let recorded: string;
let original: WorkflowBundle;

beforeAll(async () => {
  original = await bundle('order-workflows.ts');
  const model = scriptedModel([
    { toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { id: '7' } }] },
    'Order 7 has shipped.',
  ]);
  const env = await createAgentTestEnv({
    agents: [support],
    model,
    testServerPath: await ensureTestServer(),
    workflowBundle: original,
  });
  try {
    const answer = await env.client.workflow.execute('orderDesk', {
      taskQueue: env.taskQueue,
      workflowId: 'order-desk-7',
      args: ['7', env.workspace],
    });
    expect(answer).toBe('Order 7 has shipped.');
    recorded = await mkdtemp(path.join(os.tmpdir(), 'recorded-histories-'));
    await env.saveHistory('order-desk-7', path.join(recorded, 'order-desk-7.json'));
    await env.saveHistory('desk-7', path.join(recorded, 'desk-7.json'));
  } finally {
    await env.shutdown();
  }
});

it('replays recorded histories (a directory of files) against the code that recorded them', async () => {
  const runs = await expectHistoriesToReplay(recorded, { agents: [support], workflowBundle: original });
  expect(runs.map((run) => [run.workflowId, run.ok])).toEqual([
    ['desk-7', true],
    ['order-desk-7', true],
  ]);
});

it('fails on a workflow changed without a patch, naming the file, the diverging event and what differed', async () => {
  const changed = await bundle('order-workflows-changed.ts');
  const failed = await expectHistoriesToReplay(recorded, { agents: [support], workflowBundle: changed }).catch(
    (error: unknown) => error,
  );
  expect(failed).toBeInstanceOf(HistoryReplayError);
  const message = (failed as HistoryReplayError).message;
  expect(message.split('\n')[0]).toBe('1 of 2 histories do not replay against this code:');
  expect(message.split('\n').slice(1)).toEqual([
    `  ${path.join(recorded, 'order-desk-7.json')}: event 5 (StartChildWorkflowExecutionInitiated): ` +
      'Nondeterminism error: Timer machine does not handle this event: HistoryEvent(id: 5, StartChildWorkflowExecutionInitiated)',
  ]);
  expect((failed as HistoryReplayError).failed.map((run) => run.workflowId)).toEqual(['order-desk-7']);
});

it('passes when only an agent changed (its instructions and tools): a run reads its agent from the prepareRun activity recorded in its history', async () => {
  const rewritten = defineAgent({ ...support, instructions: 'You are terse support.', tools: [] });
  const runs = await expectHistoriesToReplay(path.join(recorded, 'desk-7.json'), {
    agents: [rewritten],
    workflowBundle: original,
  });
  expect(runs).toEqual([expect.objectContaining({ workflowId: 'desk-7', ok: true })]);
});
