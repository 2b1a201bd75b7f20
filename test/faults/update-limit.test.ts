import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { AgentResult } from '../../core/result';
import { sendMessage } from '../../client/send-message';
import { resolveOrThrow } from '../../client/start-agent';
import { agentDataConverter } from '../../storage/data-converter';
import { agentWorkflowType } from '../../workflows/definitions';
import { killDevServers, startDevServer } from '../support/dev-server-process';
import { freePort } from '../../cli/dev-server/free-port';
import { scriptedModel } from 'durable-agent/testing';
import { createAgentWorker } from '../../worker/create-worker';
import { makeWorkspace } from '../support/workspace';
import { inProcessTestWorker } from '../support/temporal';

afterAll(() => killDevServers());

// Temporal refuses a run's update past `history.maxTotalUpdates` (2,000 by default); a session must
// continue as new before that. Here the limit is lowered to 12 on a server of the test's own.
it("continues a session as new before Temporal's limit on updates per run, and answers every message", async () => {
  const server = await startDevServer({
    port: await freePort(),
    dbFilename: path.join(os.tmpdir(), `update-limit-${randomUUID()}.db`),
    dynamicConfig: ['history.maxTotalUpdates=12'],
  });
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection, dataConverter: agentDataConverter() });
  const model = scriptedModel(Array.from({ length: 30 }, (_, index) => `answer ${index}`));
  const taskQueue = `update-limit-${randomUUID()}`;
  const worker = await createAgentWorker({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    providers: [model.provider],
    overrides: inProcessTestWorker,
  });
  const workflowId = `update-limit-${randomUUID()}`;
  const replies = await worker.runUntil(async () => {
    await client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [resolveOrThrow({ model: 'scripted:test', workspace: await makeWorkspace(), session: { idleTimeoutSeconds: 600 } })],
    });
    const handle = client.workflow.getHandle(workflowId);
    const replies: string[] = [];
    for (let index = 0; index < 30; index++) replies.push((await sendMessage(handle, `message ${index}`)).answer);
    return replies;
  });
  expect(replies).toEqual(Array.from({ length: 30 }, (_, index) => `answer ${index}`));
  let runs = 0;
  for await (const _execution of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs++;
  expect(runs).toBeGreaterThanOrEqual(3);
  await nativeConnection.close();
  await connection.close();
  await server.stop();
});
