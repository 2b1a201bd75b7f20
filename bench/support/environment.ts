import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, type NativeConnection, type Worker } from '@temporalio/worker';
import { FileTranscriptStore } from '../../activities/transcript/transcript-store';
import { agentDataConverter } from '../../storage/data-converter';
import { fastDispatchArgs } from '../../temporal-cli/dev-server-options';
import { ensureTemporalCli } from '../../temporal-cli/find-cli';
import { builtInTools } from '../../tools';
import { createAgentWorker, workflowsPath } from '../../worker/create-worker';
import { benchTools } from './bench-tools';
import { log } from './log';
import { ScriptedSessions } from './scripted-model';

/** One dev server, one workflow bundle and one worker, shared by every benchmark of a `npm run bench`. */
export interface BenchEnvironment {
  client: Client;
  /** For benchmarks that run a worker of their own (object-storage). */
  nativeConnection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** The workflow bundle the worker runs; replay uses the same code. */
  bundleCode: string;
  /** The project's data converter (large payloads in external storage): the client and replay need it too. */
  dataConverter: DataConverter;
  model: ScriptedSessions;
  /** An empty directory: the runs need a workspace, the bench tools never touch it. */
  workspace: string;
  close(): Promise<void>;
}

// gRPC's default 4 MB message limit is too small for a page of a long history
// when events carry whole conversations; the server bounds its pages, not this client.
const maxReceiveBytes = 256 * 1024 * 1024;

export interface BenchServerOptions {
  /**
   * Lift the dev server's history transfer-queue poll limit (history.transferProcessorMaxPollRPS,
   * 20 a second by default). On the dev server's single history shard, each hand-over of a workflow
   * or activity task then waits for the next poll, ~50 ms: four per loop iteration.
   */
  liftDispatchLimit?: boolean;
}

export const liftedDispatchArgs = fastDispatchArgs;

export async function startBenchEnvironment(options: BenchServerOptions = {}): Promise<BenchEnvironment> {
  log('starting a Temporal dev server and bundling the workflow code...');
  const [testEnvironment, bundle] = await Promise.all([
    ensureTemporalCli(log).then((executable) =>
      TestWorkflowEnvironment.createLocal({
        // --output none keeps the server's start-up banner off stdout, which holds only the tables.
        server: {
          executable,
          ip: '127.0.0.1',
          extraArgs: ['--output', 'none', ...(options.liftDispatchLimit ? liftedDispatchArgs : [])],
        },
      }),
    ),
    bundleWorkflowCode({ workflowsPath, logger: quietLogger }),
  ]);
  const cleanups: Array<() => Promise<unknown>> = [() => testEnvironment.teardown()];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    const connection = await Connection.connect({
      address: testEnvironment.address,
      channelArgs: { 'grpc.max_receive_message_length': maxReceiveBytes },
    });
    cleanups.push(() => connection.close());
    const workspace = await temporaryDirectory('bench-workspace-', cleanups);
    // Large payloads (a long conversation carried across continue-as-new) go to external storage:
    // this run's own directory, not the user's, since its dev server and histories are thrown away too.
    process.env.AGENT_PAYLOAD_DIR = await temporaryDirectory('bench-payloads-', cleanups);
    const dataConverter = agentDataConverter();
    const model = new ScriptedSessions(new FileTranscriptStore(await temporaryDirectory('bench-transcripts-', cleanups)));
    const taskQueue = `bench-${randomUUID()}`;
    // Production settings: the worker caches workflows (no forced replay), as `npm run worker` does.
    const worker: Worker = await createAgentWorker({
      connection: testEnvironment.nativeConnection,
      namespace: testEnvironment.namespace ?? 'default',
      taskQueue,
      tools: [...builtInTools, ...benchTools],
      env: {},
      workspaceRoot: workspace,
      workflowBundle: { code: bundle.code },
      activityOverrides: { callModel: model.callModel },
    });
    const running = worker.run();
    cleanups.push(async () => {
      worker.shutdown();
      await running;
    });
    return {
      client: new Client({ connection, namespace: testEnvironment.namespace ?? 'default', dataConverter }),
      nativeConnection: testEnvironment.nativeConnection,
      namespace: testEnvironment.namespace ?? 'default',
      taskQueue,
      bundleCode: bundle.code,
      dataConverter,
      model,
      workspace,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function temporaryDirectory(prefix: string, cleanups: Array<() => Promise<unknown>>): Promise<string> {
  const directory = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

const quietLogger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  log: () => {},
  warn: (message: string) => log(message),
  error: (message: string) => log(message),
};
