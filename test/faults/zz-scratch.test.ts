import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { z } from 'zod';
import { builtInTools, defineTool } from '../../tools';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { largestEventBytes } from '../support/fault-history';
import { connectToTestServer, createTestWorker, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';
import { temporal } from '@temporalio/proto';

const shouts = defineTool({
  name: 'shouts',
  description: 'Fails with a 3 MB message.',
  input: z.object({}),
  activity: { maximumAttempts: 1 },
  async handler() {
    throw new Error('y'.repeat(3 * 1024 * 1024));
  },
});

it('scratch', async () => {
  const environment: TestWorkflowEnvironment = await connectToTestServer();
  const server = await FakeModelServer.start();
  server.enqueue(openaiReply({ toolCalls: [{ id: 'call_1', name: 'shouts', arguments: {} }] }), openaiReply({ content: 'carried on' }));
  const taskQueue = uniqueTaskQueue('scratch');
  const worker = await createTestWorker(environment, { taskQueue, env: server.providerEnv, tools: [...builtInTools, shouts] });
  const workflowId = 'scratch-' + Date.now();
  const handle = await environment.client.workflow.start('agentWorkflow', { taskQueue, workflowId, args: [{ prompt: 'x', model: 'openai:m', tools: ['shouts'], workspace: await makeWorkspace() }] });
  const outcome = await worker.runUntil(Promise.race([handle.result().then((r) => ({ r }), (e) => ({ e: String(e) + ' ' + String(e.cause) })), new Promise((r) => setTimeout(() => r('timeout'), 20000))]));
  console.log(JSON.stringify(outcome).slice(0, 500));
  const events = await fetchEvents(environment.client, workflowId);
  console.log(events.map((e) => temporal.api.enums.v1.EventType[e.eventType!] + ' ' + temporal.api.history.v1.HistoryEvent.encode(e).finish().length).join('\n'));
  console.log('requests', server.requests.length, server.requests[1] && JSON.stringify(server.requests[1].body.messages).length);
  await server.close();
  await environment.teardown();
}, 60000);
