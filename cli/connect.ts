import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { ConfigurationError } from '../core/errors';
import { agentDataConverter } from '../storage/data-converter';
import { startTracing } from '../telemetry/tracing';
import { cacheDirectory } from './dev-server/find-temporal-cli';
import { createAgentWorker } from '../worker/create-worker';
import { loadConnectionSettings, taskQueue as configuredTaskQueue } from '../worker/settings';
import { statusQuery } from '../workflows/definitions';
import { cliWorkspaceRoot } from './check-run';
import { portAccepts } from './dev-server/free-port';
import { startEmbeddedServer, takePrestartedServer } from './dev-server/embedded-server';
import { cliRegistry } from './registry';
import { ownWorkerVersioning } from './own-worker-versioning';
import { cliRetryInterceptors } from './grpc-retry';
import { webUiBase } from './web-ui';
import { assertTemporalReachable, unreachableMessage } from './server-reachable';
import { timingMark } from '../telemetry/startup-timing';
import { cancelOnStop } from './cancel-on-stop';

/** What a command runs on: a client of the Temporal server, and the worker this process may run beside it. */
export interface CliConnection {
  client: Client;
  namespace: string;
  taskQueue: string;
  uiBase: string | undefined;
  /** True when this process started the dev server (and so owns the only worker). */
  embedded: boolean;
  /** Runs a worker in this process from now until close(); does nothing if one already runs. */
  startWorker(reason: string): Promise<void>;
  /** True once this process runs a worker of its own (startWorker was called). */
  runsOwnWorker(): boolean;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Start an in-process worker when no worker polls the task queue (needed to run or query workflows). */
  ensureWorker: boolean;
  log: (line: string) => void;
  /**
   * Checks to make when the worker will be this process's own (its registry is then the one that counts),
   * before anything starts; a remote worker checks for itself, in prepareRun.
   */
  beforeOwnWorker?: () => void | Promise<void>;
}

/**
 * Connects the CLI to Temporal. With TEMPORAL_ADDRESS (or a config profile) it
 * connects there and never starts a server. Otherwise it uses a server already
 * answering on localhost:7233, or starts an embedded dev server. When no worker
 * polls the task queue, it runs one in this process.
 */
export async function connect(options: ConnectOptions): Promise<CliConnection> {
  const settings = loadConnectionSettings();
  const taskQueue = configuredTaskQueue();
  // Before anything starts: bad encryption key material fails the command here, with its reason.
  const dataConverter = agentDataConverter();
  // So are bad OTEL_* settings. With OTEL_EXPORTER_OTLP_ENDPOINT set, a run's trace starts here, at the client.
  const tracing = startTracing();
  const namespace = settings.namespace;
  // Closed in reverse order of opening: worker, connections, then the server; the last spans are sent after all of them.
  const closers: Array<() => Promise<void>> = tracing ? [() => tracing.flush()] : [];
  let closing = false;
  const close = async () => {
    closing = true;
    while (closers.length > 0) await closers.pop()!();
  };

  try {
    timingMark('settings loaded');
    // The CLI may have started the embedded server already, while it loaded its modules.
    const prestarted = takePrestartedServer();
    if (prestarted) closers.push(async () => (await prestarted.catch(() => undefined))?.stop());
    const embedded = prestarted !== undefined || (!settings.addressConfigured && !(await portAccepts(7233)));
    if (embedded && options.ensureWorker) await options.beforeOwnWorker?.();
    timingMark(embedded ? 'no server on 7233: starting the embedded one' : 'server found');
    const server = embedded ? await (prestarted ?? startEmbeddedServer(options.log)) : undefined;
    if (server) timingMark('embedded server serving');
    if (server && !prestarted) closers.push(server.stop);
    const connectionOptions = server ? { address: server.address } : settings.connectionOptions;
    // A TCP probe says at once that nothing listens at a plain address; to a TLS endpoint it would be a handshake that
    // never starts (a failed handshake in that server's logs, and in a proxy's count), so TLS is left to the client.
    const tls = Boolean(connectionOptions.tls || connectionOptions.apiKey);
    if (!server && !tls) await assertTemporalReachable(connectionOptions.address ?? '');
    const connection = await Connection.connect({
      ...connectionOptions,
      interceptors: [cancelOnStop, ...cliRetryInterceptors(() => closing)],
    }).catch((error: Error) => {
      // Something accepts TCP there but no Temporal answers gRPC (another service, or TLS settings that do not match).
      if (server || !/Failed to connect before the deadline/.test(error.message)) throw error;
      throw new ConfigurationError(
        unreachableMessage(
          connectionOptions.address ?? '',
          tls
            ? 'no Temporal gRPC service answered over TLS in time (check the address, the port and the TLS settings)'
            : 'it accepts connections, but no Temporal gRPC service answered (check TLS and the port)',
        ),
      );
    });
    closers.push(() => connection.close());
    timingMark('client connected');
    const client = new Client({
      connection,
      namespace,
      dataConverter,
      ...(tracing && { interceptors: tracing.clientInterceptors }),
    });

    let workerStarted = false;
    const startWorker = async (reason: string) => {
      if (workerStarted) return;
      workerStarted = true;
      // Unversioned unless told: a shell's AGENT_DEPLOYMENT_NAME must not make this command a production build.
      const { versioning, note } = ownWorkerVersioning(process.env);
      if (reason) options.log(reason);
      if (note) options.log(note);
      // The CLI's stderr is for the agent's progress; the in-process worker only reports problems. No shutdown
      // signals: the commands handle Ctrl-C themselves (in a chat it interrupts a turn, and the worker must stay
      // up to run what follows), and close() shuts the worker down.
      // Core's own log lines are forwarded to that logger (stderr): left to core, they were written on stdout (a
      // busy machine's "Workflow task duration exceeded 5 seconds" warning), into the answer or the --json line.
      Runtime.install({
        logger: new DefaultLogger('ERROR'),
        shutdownSignals: [],
        telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
      });
      const nativeConnection = await NativeConnection.connect(connectionOptions);
      timingMark('worker connected');
      closers.push(() => nativeConnection.close());
      // The embedded worker serves workspaces under the directory the user ran the command in (or AGENT_WORKSPACE_ROOT).
      const workspaceRoot = cliWorkspaceRoot();
      const worker = await createAgentWorker({
        connection: nativeConnection,
        namespace,
        taskQueue,
        workspaceRoot,
        registry: cliRegistry(),
        versioning,
        // Bundling the workflows takes seconds; the CLI keeps the bundle between runs (rebuilt when its sources change).
        workflowBundleCache: path.join(cacheDirectory(), 'workflow-bundles'),
      });
      timingMark('worker created');
      const running = worker.run();
      closers.push(async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
      });
    };

    if (options.ensureWorker) {
      if (server) await startWorker('');
      else if (!(await hasWorkflowPollers(client, namespace, taskQueue))) {
        await options.beforeOwnWorker?.();
        await startWorker(`no worker is polling task queue "${taskQueue}": running one in this process`);
      }
    }

    return {
      client,
      namespace,
      taskQueue,
      uiBase: webUiBase(connectionOptions.address ?? ''),
      embedded: server !== undefined,
      startWorker,
      runsOwnWorker: () => workerStarted,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

// The server remembers pollers for a while after they stop, so a worker that
// just exited can still be listed; callers that wait on a worker use a deadline too.
async function hasWorkflowPollers(client: Client, namespace: string, taskQueue: string): Promise<boolean> {
  const response = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (response.pollers ?? []).length > 0;
}

/**
 * Runs a query-like call with a short deadline; if no worker answers in time,
 * starts one in this process and tries again without the deadline.
 */
export async function withWorkerFallback<T>(session: CliConnection, call: () => Promise<T>): Promise<T> {
  try {
    return await session.client.connection.withDeadline(Date.now() + 5_000, call);
  } catch (error) {
    if (!noWorkerAnswered(error)) throw error;
    await session.startWorker(`no worker answered within 5s: running one in this process`);
    return call();
  }
}

/**
 * Makes sure a worker serves a run before an update or a wait that needs one: `send`, `end` and `decide` before their
 * update or signal, `run` and `chat` right after they start theirs. A worker that has just stopped (the one of an
 * earlier `run`, or of a chat that was left) is still listed as polling for a while, so connect() may have counted
 * on a worker that is gone, and the run would wait for it forever: a status query answered within 5 s proves one is
 * there, else one starts in this process. (A run just started answers once a worker has taken its first workflow
 * task.) When this process already runs its worker there is nothing to prove. Any other error is left for the
 * command's own call to report (an unknown workflow id, say).
 */
export async function ensureWorkerServes(session: CliConnection, workflowId: string): Promise<void> {
  if (session.runsOwnWorker()) return;
  await withWorkerFallback(session, () => session.client.workflow.getHandle(workflowId).query(statusQuery)).catch(
    (error: unknown) => {
      if (noWorkerAnswered(error)) throw error;
    },
  );
}

// The client wraps gRPC errors (ServiceError "Failed to query Workflow"); the status code sits on a cause.
// Three answers mean "no worker answered": a query whose deadline passes while the server waits for a worker ends
// DEADLINE_EXCEEDED, or CANCELLED when the server gives up on it first (seen when the run's last worker has just
// exited); a server that has seen no poller on the task queue lately (one just restarted: the embedded server of an
// earlier command) answers FAILED_PRECONDITION "no poller seen for task queue recently".
export function noWorkerAnswered(error: unknown): boolean {
  for (let current = error; current; current = (current as { cause?: unknown }).cause) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (code === 4 /* grpc DEADLINE_EXCEEDED */ || code === 1 /* grpc CANCELLED */) return true;
    if (code === 9 /* grpc FAILED_PRECONDITION */ && typeof message === 'string' && message.includes('no poller seen'))
      return true;
  }
  return false;
}
