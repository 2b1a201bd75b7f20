import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { sendMessage } from '../../client/send-message';
import { startAgent } from '../../client/start-agent';
import { agentDataConverter } from '../../storage/data-converter';
import { newKeyEntry } from '../support/encryption';
import { openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { createTestBucket, filesUnder, privateDirectories } from '../support/object-store';
import { spawnWorker } from '../support/spawned-worker';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

// A chat session on two workers that share nothing but Temporal and one bucket (MinIO), with encryption on.
// Worker A (key k1) answers the first message; it is then replaced by worker B, whose keys were rotated (k2 first,
// k1 kept), which answers the second message from the transcript A left in the bucket.

const model = 'openai:gpt-4o-mini';
const EventType = temporal.api.enums.v1.EventType;

// Text that must reach the model, and never the bucket in the clear.
const firstPrompt = 'PROMPT-ONE-a81c what does alpha.txt say?';
const fileText = 'FILE-TEXT-5d2e: the alpha file';
const firstAnswer = 'ANSWER-ONE-c07b: it says the alpha file';
const secondPrompt = 'PROMPT-TWO-e9f4 and in one word?';
const markers = ['PROMPT-ONE', 'FILE-TEXT', 'ANSWER-ONE', 'PROMPT-TWO', 'ANSWER-TWO'];

const bed = useTestBed({ spawnedWorkers: true });

it('keeps every object in the bucket ciphertext, and a worker with rotated keys continues from the old transcript', async () => {
  const k1 = newKeyEntry('k1');
  const rotated = `${newKeyEntry('k2')},${k1}`;
  const bucket = await createTestBucket('sealed-transcripts');
  const taskQueue = uniqueTaskQueue('sealed-transcripts');
  const workspace = await makeWorkspace({ 'alpha.txt': fileText });
  const machineA = await privateDirectories();
  const machineB = await privateDirectories();
  const startWorker = (identity: string, machine: typeof machineA, keys: string) =>
    spawnWorker({
      address: process.env.TEST_TEMPORAL_ADDRESS!,
      taskQueue,
      identity,
      env: { ...bed.server.providerEnv, ...bucket.env, ...machine.env, AGENT_ENCRYPTION_KEYS: keys },
    });
  const clientWith = (keys: string) =>
    new Client({
      connection: bed.environment.client.connection,
      dataConverter: agentDataConverter({ ...bucket.env, AGENT_ENCRYPTION_KEYS: keys }),
    });
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
    openaiReply({ content: firstAnswer }),
    openaiReply({ content: 'ANSWER-TWO-alpha' }),
  );

  const workerA = await startWorker('worker-a', machineA, k1);
  const session = { model, tools: ['read_file'], workspace, session: { idleTimeoutSeconds: 600 } };
  const handle = await startAgent(clientWith(k1), session, { taskQueue });
  expect(await sendMessage(handle, firstPrompt)).toMatchObject({ answer: firstAnswer });
  await workerA.kill();

  await startWorker('worker-b', machineB, rotated);
  const rotatedHandle = clientWith(rotated).workflow.getHandle(handle.workflowId);
  expect(await sendMessage(rotatedHandle, secondPrompt)).toMatchObject({ answer: 'ANSWER-TWO-alpha' });

  // The model saw the whole conversation in the clear: B rebuilt it from A's chunks, sealed under k1.
  expect(bed.server.requests).toHaveLength(3);
  const lastRequest = JSON.stringify(bed.server.requests[2].body.messages);
  for (const text of [firstPrompt, fileText, firstAnswer, secondPrompt]) expect(lastRequest).toContain(text);
  // The summaries are encrypted: tell the model calls apart by type and order.
  const events = await fetchEvents(bed.environment.client, handle.workflowId);
  const modelCalls = events
    .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')
    .map((event) => Number(event.eventId));
  // No call went inline: one callModel per model request, none failed (TranscriptUnavailable would show here).
  expect(modelCalls).toHaveLength(3);
  expect(events.filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED)).toHaveLength(0);
  const lastCallStart = events.find(
    (event) => Number(event.activityTaskStartedEventAttributes?.scheduledEventId) === modelCalls[2],
  )?.activityTaskStartedEventAttributes;
  expect(lastCallStart).toMatchObject({ attempt: 1, identity: 'worker-b' });

  const objects = await bucket.objects();
  const transcripts = objects.map((object) => object.key).filter((key) => key.startsWith(`${bucket.prefix}transcripts/`));
  // A stored the first two answers under k1, B the third under k2.
  expect(transcripts.filter((key) => /\/[0-9a-f]{64}\.k1\.enc$/.test(key))).toHaveLength(2);
  expect(transcripts.filter((key) => /\/[0-9a-f]{64}\.k2\.enc$/.test(key))).toHaveLength(1);
  expect(transcripts).toHaveLength(3);
  for (const object of objects) {
    const body = (await bucket.read(object.key)).toString('latin1');
    for (const marker of markers) expect(body).not.toContain(marker);
  }
  expect([...(await filesUnder(machineA.root)), ...(await filesUnder(machineB.root))]).toEqual([]);
  await handle.terminate('test done');
});
