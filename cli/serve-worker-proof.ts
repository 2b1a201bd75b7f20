import { randomUUID } from 'node:crypto';
import { Client, WorkflowUpdateStage, type WorkflowClientInterceptor, type WorkflowStartUpdateInput } from '@temporalio/client';
import { statusQuery } from '../workflows/definitions';
import { noWorkerAnswered, withWorkerFallback, type CliConnection } from './connect';

/** How long a worker that answered is trusted before a stream's long poll proves it again. */
const trustedForMs = 30_000;

/**
 * The client `agent serve` gives its web handlers: the session's, with the proof of life that `run`, `chat` and `send`
 * use (cli/connect.ts) on every call that needs a worker. connect() counts pollers, and the server lists a worker
 * that has just exited (the one of the CLI command before) for minutes: serve trusted it, ran no worker, and the
 * first message waited minutes for one. Here a call that no worker answers within 5 s starts one in this process
 * and is made again, so a request is answered within seconds either way:
 * - a query is made with the 5 s deadline (withWorkerFallback);
 * - a message (an update waited on until accepted) too, with its update id fixed first, so that the second attempt
 *   is the same update to the server, never a second message;
 * - a stream's poll (an update that waits, rightly, for the run's next event) is preceded by a status query with
 *   that deadline unless a worker answered one lately.
 * Once this process runs its own worker, calls go straight through.
 */
export function withWorkerProof(session: CliConnection): Client {
  const given = session.client.options.interceptors.workflow;
  return new Client({
    connection: session.client.connection,
    namespace: session.namespace,
    dataConverter: session.client.options.loadedDataConverter,
    interceptors: { workflow: [...(Array.isArray(given) ? given : []), workerProof(session)] },
  });
}

function workerProof(session: CliConnection): WorkflowClientInterceptor {
  let answeredAt = -Infinity;
  const answered = async <T>(call: () => Promise<T>): Promise<T> => {
    const value = await withWorkerFallback(session, call);
    answeredAt = Date.now();
    return value;
  };
  // A status query through the session's own client (not this one), so the proof is never proved in turn.
  const prove = (workflowId: string) =>
    answered(() => session.client.workflow.getHandle(workflowId).query(statusQuery)).catch((error: unknown) => {
      // Any other failure (no such workflow) is the call's own to report.
      if (noWorkerAnswered(error)) throw error;
    });
  return {
    query: (input, next) => (session.runsOwnWorker() ? next(input) : answered(() => next(input))),
    startUpdate: async (input, next) => {
      if (session.runsOwnWorker()) return next(input);
      if (stageOf(input) === WorkflowUpdateStage.ACCEPTED) {
        const once = { ...input, options: { ...input.options, updateId: input.options.updateId ?? randomUUID() } };
        return answered(() => next(once));
      }
      if (Date.now() - answeredAt >= trustedForMs) await prove(input.workflowExecution.workflowId);
      return next(input);
    },
  };
}

/**
 * The stage the caller waits for: the SDK passes it in the input (workflow-client.js, _startUpdate) though its type
 * does not declare it. Without it, an update is taken for a long poll: proved first, then left to wait.
 */
function stageOf(input: WorkflowStartUpdateInput): WorkflowUpdateStage | undefined {
  return (input as WorkflowStartUpdateInput & { waitForStage?: WorkflowUpdateStage }).waitForStage;
}
