import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startAgent } from '../../client/start-agent';
import { fetchEvents, scheduledActivities } from '../support/history';
import { scriptedModel } from 'durable-agent/testing';
import { connectToTestServer, createTestWorker, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

let environment: TestWorkflowEnvironment;
beforeAll(async () => {
  environment = await connectToTestServer();
});
afterAll(() => environment?.teardown());

interface WorkflowMetadata {
  currentDetails?: string;
  definition?: { queryDefinitions?: Array<{ name: string }> };
}

// What the Web UI shows: it reads the same fields and the same built-in metadata query.
it('gives the Web UI a task summary, run details, activity summaries and live current details', async () => {
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha' });
  let detailsDuringTools: string | undefined;
  const taskQueue = uniqueTaskQueue('web-ui');
  const model = scriptedModel([
    { toolCalls: [{ name: 'read_file', arguments: { path: 'alpha.txt' } }], usage: { inputTokens: 20, outputTokens: 8 } },
    async () => {
      const metadata = await environment.client.workflow
        .getHandle(workflowId)
        .query<WorkflowMetadata>('__temporal_workflow_metadata');
      detailsDuringTools = metadata.currentDetails;
      return 'done';
    },
  ]);
  const worker = await createTestWorker(environment, { taskQueue, model });
  const workflowId = `web-ui-${Date.now()}`;
  let finalMetadata: WorkflowMetadata = {};
  await worker.runUntil(async () => {
    const handle = await startAgent(
      environment.client,
      { prompt: 'Summarise alpha.txt for me', model: 'scripted:gpt-4o-mini', tools: ['read_file'], workspace },
      { taskQueue, workflowId },
    );
    await handle.result();
    finalMetadata = await handle.query<WorkflowMetadata>('__temporal_workflow_metadata');
  });

  const handle = environment.client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  expect(await description.staticSummary()).toBe('Summarise alpha.txt for me');
  expect(await description.staticDetails()).toContain('**model** `scripted:gpt-4o-mini`');
  expect(await description.staticDetails()).toContain('`read_file`');

  const summaries = scheduledActivities(await fetchEvents(environment.client, workflowId)).map((activity) => activity.summary);
  expect(summaries).toEqual([
    'prepare agent default · scripted:gpt-4o-mini',
    'scripted:gpt-4o-mini iteration 1',
    'read_file alpha.txt',
    'scripted:gpt-4o-mini iteration 2',
  ]);

  expect(detailsDuringTools).toMatch(/calling model.*iteration 2 of 20/);
  expect(detailsDuringTools).toContain('tokens: 20 in / 8 out');
  expect(finalMetadata.currentDetails).toMatch(/^\*\*finished\*\*/);
  expect(finalMetadata.definition?.queryDefinitions?.map((query) => query.name)).toEqual(
    expect.arrayContaining(['messages', 'status', 'conversation', 'settings']),
  );
  // The run's story is told on its stream; the progress query that told it twice is gone.
  expect(finalMetadata.definition?.queryDefinitions?.map((query) => query.name)).not.toContain('progress');
});
