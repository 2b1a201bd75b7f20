import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { connect, type CliConnection } from '../../cli/connect';
import { cancelledOnStop } from '../../cli/cancel-on-stop';
import { agentWorkflowType } from '../../workflows/definitions';
import { resolved, uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// The CLI's connection cancels the calls made under cancelledOnStop when its signal aborts (a chat's follower, a run's
// wait for its result), and holds no listener on the signal once a call is answered: the client's own
// withAbortSignal kept one per call, and a chat's follower printed MaxListenersExceededWarning in its first turn.

let session: CliConnection;
beforeAll(async () => {
  process.env.TEMPORAL_ADDRESS = process.env.TEST_TEMPORAL_ADDRESS;
  session = await connect({ ensureWorker: false, log: () => {} });
});
afterAll(async () => {
  await session?.close();
  delete process.env.TEMPORAL_ADDRESS;
});

it('leaves no listener on the signal after each call, however many the work makes', async () => {
  const stop = new AbortController();
  await cancelledOnStop(stop.signal, async () => {
    for (let call = 0; call < 25; call++)
      await session.client.workflowService.describeNamespace({ namespace: session.namespace });
  });
  expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
});

it('cancels a long poll in flight when the signal aborts', async () => {
  // A run no worker serves: waiting for its result is a long poll that the server answers only when it ends.
  const workflowId = `stop-signal-${randomUUID()}`;
  const handle = await session.client.workflow.start(agentWorkflowType, {
    taskQueue: uniqueTaskQueue('stop-signal'),
    workflowId,
    args: [resolved({ prompt: 'never answered', model: 'openai:gpt-4o-mini', workspace: await makeWorkspace() })],
  });
  try {
    const stop = new AbortController();
    const waiting = cancelledOnStop(stop.signal, () => handle.result());
    // The client wraps the call's status ("Failed to get Workflow execution history"); its cause is gRPC's CANCELLED.
    const outcome = waiting.then(
      () => 'answered',
      (error: Error) => (error.cause as { code?: number } | undefined)?.code,
    );
    // Once the poll is in flight (it holds its listener), the abort ends it.
    await waitFor('the poll in flight', () => getEventListeners(stop.signal, 'abort').length > 0);
    stop.abort();
    expect(await outcome).toBe(1 /* grpc CANCELLED */);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  } finally {
    await handle.terminate('the test is over');
  }
});
