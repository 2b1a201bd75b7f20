import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { agentDataConverter } from '../../storage/data-converter';

/**
 * Every workflow that ran on these task queues (runs of a continue-as-new chain and child workflows alike) is replayed
 * against the shared bundle once its test file ends, and a run that does not replay fails the file. Test workers keep
 * their workflows cached, as production ones do: replaying every workflow task from the start instead
 * (maxCachedWorkflows 0) made a session's cost grow with the square of its length, in the test's own thread, and under
 * load its tasks ran past their timeout and were replayed again.
 */
const queues = new Set<string>();

export function replayAtEnd(taskQueue: string): void {
  queues.add(taskQueue);
}

// Registered when a test file first imports this module (during collection, where jest takes hooks); it runs before
// the file's own afterAll hooks, which were declared after its imports.
if (typeof afterAll === 'function')
  afterAll(async () => {
    const failures = await replayFailures([...queues]);
    queues.clear();
    if (failures.length > 0) throw new Error(`workflows of this file do not replay:\n${failures.join('\n')}`);
  }, 120_000);

/** Replays every run on these task queues against the shared bundle: what failed, one line per run. */
export async function replayFailures(taskQueues: string[]): Promise<string[]> {
  if (taskQueues.length === 0) return [];
  const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS });
  try {
    const client = new Client({ connection, dataConverter: agentDataConverter() });
    const histories: Array<{ workflowId: string; history: temporal.api.history.v1.IHistory }> = [];
    for (const taskQueue of taskQueues) {
      for await (const execution of client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) {
        const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
        // With no workflow task started there is no command to compare, and the replay worker would wait for one.
        if (history.events?.some((event) => Number(event.eventType) === 6 /* WORKFLOW_TASK_STARTED */))
          histories.push({ workflowId: execution.workflowId, history });
      }
    }
    if (histories.length === 0) return [];
    const failures: string[] = [];
    const replayed = Worker.runReplayHistories(
      { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, dataConverter: agentDataConverter() },
      histories,
    );
    for await (const result of replayed) {
      // The SDK's DeterminismViolationError, or a workflow task our own checks failed (a local tool's result paired
      // with another call): either way this code does not replay what its workers recorded.
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    return failures;
  } finally {
    await connection.close();
  }
}
