import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startAgent } from '../../client/start-agent';
import { startMinio, type MinioServer } from '../support/minio/minio-server';
import { agentDataConverter } from '../../storage/data-converter';
import { activityAttempts, fetchEvents, scheduledActivities } from '../support/history';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { historyPayloads, storageReference } from '../support/history-payloads';
import { privateDirectories } from '../support/object-store';
import { readStepLog, stepHistory } from '../support/slow-step-tool';
import { killSpawnedWorkers, spawnWorker } from '../support/spawned-worker';
import { connectToTestServer, uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// The bucket goes away in the middle of a run and comes back: a MinIO server of
// this test's own, stopped and restarted on the same port and data directory.

const model = 'openai:gpt-4o-mini';
const credentials = { accessKeyId: 'outage-test', secretAccessKey: 'outage-test-secret' };

let environment: TestWorkflowEnvironment;
let fake: FakeModelServer;
let minio: MinioServer | undefined;
let dataDirectory: string;
beforeAll(async () => {
  environment = await connectToTestServer();
  fake = await FakeModelServer.start();
  dataDirectory = await mkdtemp(path.join(os.tmpdir(), 'agent-minio-outage-'));
});
afterAll(async () => {
  await killSpawnedWorkers();
  await minio?.stop();
  await rm(dataDirectory, { recursive: true, force: true });
  await fake?.close();
  await environment?.teardown();
});

const startServer = (port?: number) => {
  const binary = process.env.TEST_MINIO_BINARY;
  if (!binary) throw new Error(`no MinIO for the tests: ${process.env.TEST_S3_UNAVAILABLE ?? 'run them through jest'}`);
  return startMinio({ binary, dataDirectory, port, ...credentials });
};

it('rides out a bucket outage: a model answer that cannot be stored is retried until the bucket is back, then recorded once', async () => {
  minio = await startServer();
  const port = Number(new URL(minio.endpoint).port);
  const bucket = 'outage';
  await new S3Client({ endpoint: minio.endpoint, region: 'us-east-1', forcePathStyle: true, credentials }).send(
    new CreateBucketCommand({ Bucket: bucket }),
  );
  const env = {
    AGENT_S3_BUCKET: bucket,
    AWS_ENDPOINT_URL: minio.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  };
  const workspace = await makeWorkspace();
  const stepLog = path.join(workspace, 'steps.log');
  const gate = path.join(await makeWorkspace(), 'open');
  const taskQueue = uniqueTaskQueue('bucket-outage');
  await spawnWorker({
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    taskQueue,
    identity: 'worker',
    env: { ...fake.providerEnv, ...env, ...(await privateDirectories()).env, SLOW_STEP_LOG: stepLog },
  });
  // Turn 2's answer is over 256 KiB: it can only be recorded through the bucket.
  const answer = 'a'.repeat(300 * 1024);
  fake.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_1', name: 'slow_step', arguments: { label: 'first', ms: 0, waitForFile: gate } }] }),
  );
  fake.respondWith(() => openaiReply({ content: answer }));
  const client = new Client({ connection: environment.client.connection, dataConverter: agentDataConverter(env) });
  const handle = await startAgent(client, { prompt: 'Do the step.', model, tools: ['slow_step'], workspace }, { taskQueue });
  await waitFor('the step to start', async () => (await readStepLog(stepLog)).length > 0, { timeoutMs: 60_000 });

  await minio.stop();
  await writeFile(gate, '');
  // Two attempts of iteration 2 reach the model and fail to store the answer while the bucket is down.
  await waitFor('two attempts of iteration 2 to fail', () => fake.requests.length >= 3, { timeoutMs: 60_000 });
  minio = await startServer(port);

  expect(await handle.result()).toMatchObject({ answer, status: 'completed', iterations: 2 });
  expect(stepHistory(await readStepLog(stepLog))).toEqual({ first: ['start@worker', 'finish@worker'] });
  const events = await fetchEvents(environment.client, handle.workflowId);
  // Turn 2 is one activity whose attempts failed while its answer could not be stored: the model saw each attempt.
  expect(scheduledActivities(events).filter((activity) => activity.activityType === 'callModel')).toHaveLength(2);
  const turn2 = activityAttempts(events)
    .filter((attempt) => attempt.activityType === 'callModel')
    .at(-1)!;
  expect(turn2.attempt).toBeGreaterThanOrEqual(3);
  expect(turn2.attempt).toBe(fake.requests.length - 1);
  // The attempts an outage may use up: the model call's retry policy, 10 attempts 1 s, 2 s, 4 s … 1 min apart (about 4 min).
  const scheduled = events.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')!;
  const policy = scheduled.activityTaskScheduledEventAttributes!.retryPolicy!;
  expect({
    maximumAttempts: policy.maximumAttempts,
    initialInterval: Number(policy.initialInterval!.seconds),
    backoffCoefficient: policy.backoffCoefficient,
    maximumInterval: Number(policy.maximumInterval!.seconds),
  }).toEqual({ maximumAttempts: 10, initialInterval: 1, backoffCoefficient: 2, maximumInterval: 60 });
  expect(fake.requests.slice(1).every((request) => request.body.messages.length === 3)).toBe(true);
  // The answer is in history as a claim on the bucket, recorded once.
  const references = historyPayloads(events).flatMap(({ eventType, payload }) => (storageReference(payload) ? [eventType] : []));
  expect(references).toEqual(['EVENT_TYPE_ACTIVITY_TASK_COMPLETED', 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED']);
});
