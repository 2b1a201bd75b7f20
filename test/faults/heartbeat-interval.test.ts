import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { heartbeatIntervalMs } from '../../activities/heartbeating';
import type { AgentResult } from '../../core/result';
import { agentWorkflowType } from '../../workflows/definitions';
import { openaiReply } from '../support/fake-model-server';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';

// A heartbeat is an RPC and a write of the activity's state on the server. Core sends the first one at once and then
// at most one per throttle interval, so the activities heartbeat at that interval (2 s): a model call shorter than it
// costs no heartbeat, and a longer one still heartbeats (a dead worker is noticed, cancellation is delivered).
// Observed from the server's side: the pending activity's last heartbeat time, polled while the call runs.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

/** Runs one model call that the model answers after `delayMs`, and says whether the server ever saw it heartbeat. */
async function heartbeatSeen(delayMs: number): Promise<boolean> {
  bed.server.enqueue({ ...openaiReply({ content: 'done' }), delayMs });
  const taskQueue = uniqueTaskQueue('heartbeat');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const handle = await bed.environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
    taskQueue,
    workflowId: `heartbeat-${randomUUID()}`,
    args: [resolved({ workspace: bed.workspace, prompt: 'hello', model: 'openai:gpt-4o-mini', tools: [] })],
  });
  let seen = false;
  let done = false;
  const watching = (async () => {
    while (!done) {
      seen ||= await callModelHeartbeated(handle);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const result = await worker.runUntil(handle.result()).finally(() => (done = true));
  await watching;
  expect(result).toMatchObject({ status: 'completed', answer: 'done' });
  return seen;
}

async function callModelHeartbeated(handle: WorkflowHandle): Promise<boolean> {
  const { raw } = await handle.describe();
  return (raw.pendingActivities ?? []).some(
    (activity) => activity.activityType?.name === 'callModel' && activity.lastHeartbeatTime != null,
  );
}

it('sends no heartbeat for a model call shorter than the heartbeat interval', async () => {
  expect(heartbeatIntervalMs).toBe(2_000);
  // Ticking every second, as before, heartbeated this call at 1 s, half a second before the model answered.
  expect(await heartbeatSeen(1_500)).toBe(false);
});

it('heartbeats a model call longer than the interval, so a dead worker is still noticed', async () => {
  expect(await heartbeatSeen(4_500)).toBe(true);
});
