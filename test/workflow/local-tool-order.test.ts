import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { z } from 'zod';
import { defineTool } from '../../tools';
import { workflowsPath } from '../../worker/agent-plugin';
import { scriptedModel } from 'durable-agent/testing';
import { replayFailures } from '../support/replay-at-end';
import { waitFor } from '../support/wait-for';
import { connectToTestServer, createTestWorker, inProcessTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { createAgentWorker } from '../../worker/create-worker';

// Issue 30, item 2, for tools run as local activities: the SDK gives a local activity no id but its position, so
// replay cannot compare ids as it does for a tool activity's `tool-<call id>`. The local tool answers with the call id
// it ran for, and the workflow checks it: a round of local tools started in reverse order fails replay too.

let environment: TestWorkflowEnvironment;
let reversed: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  environment = await connectToTestServer();
  // The shared bundle, but a round of local tools starts in reverse order.
  reversed = await bundleWorkflowCode({
    workflowsPath,
    logger: new DefaultLogger('WARN'),
    workflowInterceptorModules: [path.join(__dirname, '..', 'fixtures', 'versioning', 'reversed-tool-round.ts')],
  });
});
afterAll(() => environment?.teardown());

const stamp = defineTool({
  name: 'stamp',
  description: 'Stamps a label.',
  input: z.object({ label: z.string() }),
  activity: { local: true },
  handler: async ({ label }) => `stamped ${label}`,
});

/** A model that asks for one round of two stamps, then answers. */
function stampingModel() {
  return scriptedModel([
    {
      toolCalls: [
        { name: 'stamp', arguments: { label: 'a' }, id: 's1' },
        { name: 'stamp', arguments: { label: 'b' }, id: 's2' },
      ],
    },
    'done',
  ]);
}

it('fails the replay of a round of local tools started in reverse order, rather than pair each result with the other call', async () => {
  const model = stampingModel();
  const taskQueue = uniqueTaskQueue('local-tool-order');
  const worker = await createTestWorker(environment, { taskQueue, model, tools: [stamp] });
  const workspace = await mkdtemp(path.join(os.tmpdir(), 'local-tool-order-'));
  const { result, workflowId } = await worker.runUntil(
    runAgent(environment, taskQueue, { prompt: 'stamp a and b', model: 'scripted:test-model', tools: ['stamp'], workspace }),
  );
  expect(result).toMatchObject({ answer: 'done', status: 'completed' });
  expect(
    model.requests[1].messages.slice(-2).map((message) => [message.role === 'tool' && message.toolCallId, message.content]),
  ).toEqual([
    ['s1', 'stamped a'],
    ['s2', 'stamped b'],
  ]);

  const history = await environment.client.workflow.getHandle(workflowId).fetchHistory();
  await expect(
    Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, history, workflowId),
  ).resolves.toBeUndefined();
  await expect(Worker.runReplayHistory({ workflowBundle: reversed }, history, workflowId)).rejects.toThrow(
    /the local activity result recorded for tool call s1 came back to call s2/,
  );
}, 180_000);

it("fails the file's closing replay when its workflows ran code other than the shared bundle's", async () => {
  // Test workers cache their workflows; what catches non-determinism is replayAtEnd's replay of every run on their
  // task queues once the file ends. Here a run recorded by the reversed bundle must be reported by that replay.
  const model = stampingModel();
  const taskQueue = uniqueTaskQueue('local-tool-order-closing');
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    namespace: 'default',
    taskQueue,
    tools: [stamp],
    providers: [model.provider],
    workflowBundle: reversed,
    overrides: inProcessTestWorker,
  });
  const workspace = await mkdtemp(path.join(os.tmpdir(), 'local-tool-order-'));
  const { workflowId } = await worker.runUntil(
    runAgent(environment, taskQueue, { prompt: 'stamp a and b', model: 'scripted:test-model', tools: ['stamp'], workspace }),
  );
  // Visibility lists a run once it has indexed it.
  const failures = await waitFor(
    'the run listed and replayed',
    async () => {
      const found = await replayFailures([taskQueue]);
      return found.length > 0 && found;
    },
    { intervalMs: 500 },
  );
  expect(failures).toEqual([
    expect.stringMatching(new RegExp(`^${workflowId}: .*recorded for tool call s2 came back to call s1`)),
  ]);
});
