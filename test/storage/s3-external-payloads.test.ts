import { createHash } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { maxPromptChars } from '../../core/limits';
import type { Message } from '../../core/messages';
import { sendMessage } from '../../client/send-message';
import { startAgent } from '../../client/start-agent';
import { agentDataConverter } from '../../storage/data-converter';
import { lastJsonLine, runCli } from '../support/cli';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { historyPayloads, storageReference } from '../support/history-payloads';
import { createTestBucket, filesUnder, privateDirectories, type TestBucket } from '../support/object-store';
import { killSpawnedWorkers, spawnWorker } from '../support/spawned-worker';
import { connectToTestServer, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

// A worker in a process of its own, configured with a bucket on the tests' MinIO
// server and local directories nobody else has. Clients reach the run's large
// payloads through the bucket alone.

const model = 'openai:gpt-4o-mini';
const PayloadMessage = temporal.api.common.v1.Payload;

let environment: TestWorkflowEnvironment;
let fake: FakeModelServer;
let bucket: TestBucket;
let workerMachine: string;
let taskQueue: string;
let workspace: string;

beforeAll(async () => {
  environment = await connectToTestServer();
  fake = await FakeModelServer.start();
  bucket = await createTestBucket('payloads');
  const machine = await privateDirectories();
  workerMachine = machine.root;
  taskQueue = uniqueTaskQueue('s3-payloads');
  workspace = await makeWorkspace();
  await spawnWorker({
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    taskQueue,
    identity: 'worker-with-bucket',
    env: { ...fake.providerEnv, ...bucket.env, ...machine.env },
  });
});
beforeEach(() => fake.reset());
afterAll(async () => {
  await killSpawnedWorkers();
  await fake?.close();
  await environment?.teardown();
});

/** A client of its own, on the test server, with the data converter this environment configures. */
function clientWith(env: NodeJS.ProcessEnv): Client {
  return new Client({ connection: environment.client.connection, namespace: 'default', dataConverter: agentDataConverter(env) });
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const storedValue = (bytes: Uint8Array) => JSON.parse(Buffer.from(PayloadMessage.decode(bytes).data!).toString());

describe('a run whose input, model answer and result are over 256 KiB', () => {
  const prompt = 'p'.repeat(maxPromptChars);
  const answer = 'a'.repeat(300 * 1024);
  let workflowId: string;

  beforeAll(async () => {
    fake.enqueue(openaiReply({ content: answer }));
    const handle = await startAgent(clientWith(bucket.env), { prompt, model, workspace }, { taskQueue });
    workflowId = handle.workflowId;
    expect(await handle.result()).toMatchObject({ answer, status: 'completed' });
  });

  it('keeps them in the bucket as the official S3 driver objects, and only their claims in history', async () => {
    const payloads = historyPayloads(await fetchEvents(environment.client, workflowId));
    const references = payloads.flatMap(({ eventType, payload }) => {
      const reference = storageReference(payload);
      return reference ? [{ eventType, ...reference }] : [];
    });
    expect(references.map((reference) => reference.eventType)).toEqual([
      'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
      'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED',
      'EVENT_TYPE_ACTIVITY_TASK_COMPLETED',
      'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
    ]);
    // Everything else stayed small and inline.
    expect(Math.max(...payloads.map(({ payload }) => payload.data!.length))).toBeLessThan(4 * 1024);

    // The official key layout; an activity's payloads are filed under the workflow that scheduled it.
    const objectKey = new RegExp(
      `^agents/test/v0/ns/default/wt/agentWorkflow/wi/${workflowId}/ri/[^/]+/d/sha256/([0-9a-f]{64})$`,
    );
    for (const reference of references) {
      const { bucket: claimBucket, key, hashAlgorithm, hashValue } = reference.claimData;
      expect(reference.driverName).toBe('aws.s3driver');
      expect({ claimBucket, hashAlgorithm }).toEqual({ claimBucket: bucket.bucket, hashAlgorithm: 'sha256' });
      expect(key).toMatch(objectKey);
      expect(key.match(objectKey)![1]).toBe(hashValue);
      expect(sha256(await bucket.read(key))).toBe(hashValue);
    }
    const [started, scheduled, modelAnswer, completed] = await Promise.all(
      references.map(({ claimData }) => bucket.read(claimData.key)),
    );
    expect(storedValue(started).prompt).toBe(prompt);
    expect(storedValue(scheduled).transcript.messages[0]).toEqual({ role: 'user', content: prompt });
    expect(storedValue(modelAnswer).message.content).toBe(answer);
    expect(storedValue(completed).answer).toBe(answer);
  });

  it('gives the result and the conversation back to any client configured with the bucket, under any prefix', async () => {
    for (const prefix of ['agents/test/', 'another-prefix/']) {
      const handle = clientWith({ ...bucket.env, AGENT_S3_PREFIX: prefix }).workflow.getHandle(workflowId);
      expect((await handle.result()).answer).toBe(answer);
    }
    const messages = await clientWith(bucket.env).workflow.getHandle(workflowId).query<Message[]>('messages');
    expect(messages.map((message) => message.content)).toEqual([prompt, answer]);
  });

  it('tells a client configured without the bucket what to set', async () => {
    const localOnly = clientWith({ AGENT_PAYLOAD_DIR: await mkdtemp(path.join(os.tmpdir(), 'agent-payloads-')) });
    await expect(localOnly.workflow.getHandle(workflowId).result()).rejects.toThrow(
      new RegExp(`stored in S3 \\(bucket ${bucket.bucket}, key agents/test/v0/\\S+\\) and this process has no AGENT_S3_BUCKET`),
    );
  });

  it("writes nothing to the worker's local directories", async () => {
    expect(await filesUnder(workerMachine)).toEqual([]);
  });

  it('refuses an object that no longer matches its claim instead of returning other data', async () => {
    const completed = (await fetchEvents(environment.client, workflowId)).at(-1)!;
    const { key } = storageReference(completed.workflowExecutionCompletedEventAttributes!.result!.payloads![0])!.claimData;
    await bucket.s3.send(
      new PutObjectCommand({
        Bucket: bucket.bucket,
        Key: key,
        Body: PayloadMessage.encode({ data: Buffer.from('"other"') }).finish(),
      }),
    );
    await expect(clientWith(bucket.env).workflow.getHandle(workflowId).result()).rejects.toThrow(/integrity check failed/);
  });
});

it('lets `agent show` in a process configured only with the bucket read a conversation over 2 MB', async () => {
  const handle = await startAgent(
    clientWith(bucket.env),
    { model, workspace, session: { idleTimeoutSeconds: 600 } },
    { taskQueue },
  );
  const conversation: string[] = [];
  for (let turn = 0; turn < 5; turn++) {
    const message = `message ${turn} `.padEnd(200 * 1024, 'm');
    const reply = `reply ${turn} `.padEnd(250 * 1024, 'r');
    fake.enqueue(openaiReply({ content: reply }));
    expect((await sendMessage(handle, message)).answer).toBe(reply);
    conversation.push(message, reply);
  }
  const before = new Set((await bucket.objects()).map((object) => object.key));

  // A third process: the CLI, with the bucket's settings and neither the workers' directories nor a home of its own.
  const emptyHome = await mkdtemp(path.join(os.tmpdir(), 'agent-home-'));
  const show = await runCli(['show', handle.workflowId, '--json'], {
    ...bucket.env,
    AGENT_TASK_QUEUE: taskQueue,
    AGENT_TRANSCRIPT_DIR: undefined,
    AGENT_PAYLOAD_DIR: undefined,
    HOME: emptyHome,
  });
  await handle.terminate('test finished');

  expect(show.code).toBe(0);
  const shown = lastJsonLine(show.stdout) as { messages: Message[] };
  expect(shown.messages.map((message) => message.content)).toEqual(conversation);
  expect(Buffer.byteLength(JSON.stringify(shown.messages))).toBeGreaterThan(2 * 1024 * 1024);
  // The CLI read the conversation from the transcript the workers stored in the bucket (client/read-conversation.ts):
  // the worker answered only the small conversation query, so showing the run added nothing to the bucket.
  expect((await bucket.objects()).filter((object) => !before.has(object.key))).toEqual([]);
  expect(await filesUnder(emptyHome)).toEqual([]);
});
