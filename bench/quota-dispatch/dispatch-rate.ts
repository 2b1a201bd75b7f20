import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { waitFor } from '../../test/support/wait-for';
import { quietLogger } from '../support/log';
import { startOwnDevServer } from '../support/own-dev-server';

/**
 * Who sets the limit: the worker (`maxTaskQueueActivitiesPerSecond`, sent with each poll and kept in the server's
 * memory) or the UpdateTaskQueueConfig API (`temporal task-queue config set --queue-rps-limit`, stored with the queue).
 */
export type LimitSetBy = 'worker' | 'api';

export interface DispatchRate {
  partitions: number;
  limit: number;
  setBy: LimitSetBy;
  tasks: number;
  /** Tasks started within the first second (the limiter's burst and the first second's rate). */
  firstSecond: number;
  /** Tasks started per second after the first second, to the last. */
  afterFirstSecond: number;
  /** From the first start to the last. */
  spanMs: number;
}

let bundle: Promise<string> | undefined;

/**
 * How the server dispatches a backlog under a task queue rate limit, with nothing else in the way: `tasks` activity
 * tasks are queued first (one per workflow, no poller on their queue yet), then one worker polls the queue with
 * the limit set by the worker (`maxTaskQueueActivitiesPerSecond`, as a provider queue's worker sets it,
 * worker/provider-queues.ts) or beforehand through the API, and each start is timed. On a dev server of its own
 * (state in `directory`) with `partitions` read and write partitions per task queue.
 */
export async function measureDispatchRate(options: {
  directory: string;
  partitions: number;
  limit: number;
  setBy: LimitSetBy;
  tasks: number;
}): Promise<DispatchRate> {
  const { partitions, limit, setBy, tasks } = options;
  bundle ??= bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'workflows.ts'), logger: quietLogger }).then(
    (built) => built.code,
  );
  const server = await startOwnDevServer({
    directory: options.directory,
    dynamicConfig: [
      'history.transferProcessorMaxPollRPS=10000',
      `matching.numTaskqueueReadPartitions=${partitions}`,
      `matching.numTaskqueueWritePartitions=${partitions}`,
    ],
  });
  try {
    const { client, nativeConnection } = server;
    const limitedQueue = 'limited';
    if (setBy === 'api')
      await client.workflowService.updateTaskQueueConfig({
        namespace: 'default',
        identity: 'quotas bench',
        taskQueue: limitedQueue,
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        updateQueueRateLimit: { rateLimit: { requestsPerSecond: limit }, reason: 'the quotas bench' },
      });
    const workflows = await Worker.create({
      connection: nativeConnection,
      taskQueue: 'workflows',
      workflowBundle: { code: await bundle },
    });
    const starts: number[] = [];
    await workflows.runUntil(async () => {
      const handles = await Promise.all(
        Array.from({ length: tasks }, (_, index) =>
          client.workflow.start('oneActivity', { taskQueue: 'workflows', workflowId: `dispatch-${index}`, args: [limitedQueue] }),
        ),
      );
      await waitFor(
        'every workflow to schedule its activity',
        async () => {
          const pending = await Promise.all(
            handles.map(async (handle) => (await handle.describe()).raw.pendingActivities?.length ?? 0),
          );
          return pending.every((count) => count === 1);
        },
        { timeoutMs: 120_000, intervalMs: 500 },
      );
      // Only now does a worker poll the limited queue: the whole backlog waits for the limiter.
      const limited = await Worker.create({
        connection: nativeConnection,
        taskQueue: limitedQueue,
        activities: { dispatched: async () => void starts.push(Date.now()) },
        ...(setBy === 'worker' && { maxTaskQueueActivitiesPerSecond: limit }),
      });
      await limited.runUntil(Promise.all(handles.map((handle) => handle.result())));
    });
    const first = Math.min(...starts);
    const last = Math.max(...starts);
    const later = starts.filter((time) => time - first >= 1000);
    return {
      partitions,
      limit,
      setBy,
      tasks,
      firstSecond: tasks - later.length,
      afterFirstSecond: later.length / Math.max(0.001, (last - first - 1000) / 1000),
      spanMs: last - first,
    };
  } finally {
    await server.close();
  }
}
