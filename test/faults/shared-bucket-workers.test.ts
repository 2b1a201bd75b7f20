import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { startAgent } from '../../client/start-agent';
import { agentDataConverter } from '../../storage/data-converter';
import { activityStarts, startOf } from '../support/activity-starts';
import { openaiReply, type FakeStep } from '../support/fake-model-server';
import { fetchEvents, scheduledActivities } from '../support/history';
import { createTestBucket, filesUnder, privateDirectories } from '../support/object-store';
import { readStepLog, stepHistory } from '../support/slow-step-tool';
import { spawnWorker } from '../support/spawned-worker';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// Two workers as if on two machines: each has local store directories of its own,
// and they share nothing but the Temporal server and one bucket. Worker A runs the
// first turns and is SIGKILLed in the middle of a tool call; worker B, polling all
// along, finishes the run and has to find A's transcripts in the bucket to do so.

const model = 'openai:gpt-4o-mini';

const bed = useTestBed({ spawnedWorkers: true });

function stepCall(id: string, label: string, extra: { waitForFile?: string } = {}): FakeStep {
  return openaiReply({ toolCalls: [{ id, name: 'slow_step', arguments: { label, ms: 0, ...extra } }] });
}

it('finishes a run on the other worker when one is killed mid-turn, repeating nothing, with only the bucket shared', async () => {
  const bucket = await createTestBucket('two-workers');
  const taskQueue = uniqueTaskQueue('shared-bucket');
  const workspace = await makeWorkspace();
  const stepLog = path.join(workspace, 'steps.log');
  const gate = path.join(await makeWorkspace(), 'open');
  const machineA = await privateDirectories();
  const machineB = await privateDirectories();
  const startWorker = (identity: string, machine: typeof machineA) =>
    spawnWorker({
      address: process.env.TEST_TEMPORAL_ADDRESS!,
      taskQueue,
      identity,
      env: { ...bed.server.providerEnv, ...bucket.env, ...machine.env, SLOW_STEP_LOG: stepLog },
    });
  bed.server.enqueue(
    stepCall('call_1', 'first'),
    stepCall('call_2', 'second', { waitForFile: gate }),
    openaiReply({ content: 'both steps done' }),
  );

  const workerA = await startWorker('worker-a', machineA);
  const client = new Client({ connection: bed.environment.client.connection, dataConverter: agentDataConverter(bucket.env) });
  const handle = await startAgent(client, { prompt: 'Do the steps.', model, tools: ['slow_step'], workspace }, { taskQueue });
  const steps = async () => stepHistory(await readStepLog(stepLog));
  // Worker B joins only once A is inside the second step, so everything up to it ran on A.
  await waitFor('the second step to start on worker A', async () => (await steps()).second?.includes('start@worker-a'), {
    timeoutMs: 90_000,
  });
  await startWorker('worker-b', machineB);

  await workerA.kill();
  await writeFile(gate, '');

  expect(await handle.result()).toMatchObject({ answer: 'both steps done', status: 'completed', iterations: 3 });
  // Each model request reached the model once; the step that was cut short ran again on B, the finished one did not.
  expect(bed.server.requests).toHaveLength(3);
  expect(await steps()).toEqual({
    first: ['start@worker-a', 'finish@worker-a'],
    second: ['start@worker-a', 'start@worker-b', 'finish@worker-b'],
  });
  const events = await fetchEvents(bed.environment.client, handle.workflowId);
  const starts = activityStarts(events);
  expect(startOf(starts, `${model} iteration 1`)).toMatchObject({ attempt: 1, identity: 'worker-a' });
  expect(startOf(starts, `${model} iteration 2`)).toMatchObject({ attempt: 1, identity: 'worker-a' });
  expect(startOf(starts, 'slow_step second')).toMatchObject({ attempt: 2, identity: 'worker-b' });
  // B made the last call from A's transcript in the bucket: no call was resent with the conversation inline.
  expect(startOf(starts, `${model} iteration 3`)).toMatchObject({ attempt: 1, identity: 'worker-b' });
  expect(scheduledActivities(events).filter((activity) => activity.activityType === 'callModel')).toHaveLength(3);
  expect(bed.server.requests[2].body.messages.map((message: { role: string }) => message.role)).toEqual([
    'user',
    'assistant',
    'tool',
    'assistant',
    'tool',
  ]);
  const transcripts = (await bucket.objects()).filter((object) => object.key.startsWith(`${bucket.prefix}transcripts/`));
  expect(transcripts).toHaveLength(3);
  expect([...(await filesUnder(machineA.root)), ...(await filesUnder(machineB.root))]).toEqual([]);
});
