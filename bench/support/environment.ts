import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, type Worker } from '@temporalio/worker';
import { FileTranscriptStore } from '../../storage/transcript/transcript-store';
import { agentDataConverter } from '../../storage/data-converter';
import { builtInTools } from '../../tools';
import { createAgentWorker, workflowsPath } from '../../worker/create-worker';
import { withSharedWorkflowModules } from '../../worker/shared-workflow-modules';
import { benchTools } from './bench-tools';
import { startBenchServer, type BenchServer, type ServerSetting } from './bench-server';
import { log, quietLogger } from './log';
import { LoadModel } from './load-model';

/** Our agent worker (the load model, load-model.ts) on one of the benchmark's servers, and a client to start runs there. */
export interface AgentTarget {
  server: BenchServer;
  client: Client;
  taskQueue: string;
}

/**
 * What every benchmark of a `npm run bench` shares: dev servers (one per setting,
 * started when first asked for), the agent workflow bundle, an agent worker per
 * server whose callModel is the load model, and temporary directories removed at the end.
 */
export interface BenchEnvironment {
  /** Our agent on the project's server (eager activities on), where most benchmarks run. */
  client: Client;
  taskQueue: string;
  /** The workflow bundle the agent workers run; replay uses the same code. */
  bundleCode: string;
  /** The project's data converter (large payloads in external storage): the client and replay need it too. */
  dataConverter: DataConverter;
  model: LoadModel;
  /** An empty directory: the runs need a workspace, the bench tools never touch it. */
  workspace: string;
  server(setting: ServerSetting): Promise<BenchServer>;
  agentOn(setting: ServerSetting): Promise<AgentTarget>;
  /** Starts a worker that stops when the environment closes. */
  runWorker(worker: Worker): void;
  temporaryDirectory(prefix: string): Promise<string>;
  close(): Promise<void>;
}

export async function startBenchEnvironment(): Promise<BenchEnvironment> {
  log('starting a Temporal dev server and bundling the workflow code...');
  const cleanups: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  const temporaryDirectory = async (prefix: string) => {
    const directory = await mkdtemp(path.join(os.tmpdir(), prefix));
    cleanups.push(() => rm(directory, { recursive: true, force: true }));
    return directory;
  };
  const runWorker = (worker: Worker) => {
    const running = worker.run();
    cleanups.push(async () => {
      worker.shutdown();
      await running;
    });
  };
  const servers = new Map<ServerSetting, Promise<BenchServer>>();
  const server = (setting: ServerSetting) => {
    if (!servers.has(setting)) {
      const started = startBenchServer(setting);
      servers.set(setting, started);
      cleanups.push(() =>
        started.then(
          (running) => running.close(),
          () => undefined,
        ),
      );
    }
    return servers.get(setting)!;
  };
  try {
    const [bundle] = await Promise.all([
      bundleWorkflowCode(withSharedWorkflowModules({ workflowsPath, logger: quietLogger })),
      server('project'),
    ]);
    const workspace = await temporaryDirectory('bench-workspace-');
    // Large payloads (a long conversation carried across continue-as-new) go to external storage, and
    // transcripts to a store of their own: this run's directories, not the user's, since its dev
    // servers and histories are thrown away too.
    process.env.AGENT_PAYLOAD_DIR = await temporaryDirectory('bench-payloads-');
    process.env.AGENT_TRANSCRIPT_DIR = await temporaryDirectory('bench-transcripts-');
    const dataConverter = agentDataConverter();
    const model = new LoadModel(new FileTranscriptStore(process.env.AGENT_TRANSCRIPT_DIR));
    const agents = new Map<ServerSetting, Promise<AgentTarget>>();
    const agentOn = (setting: ServerSetting) => {
      if (!agents.has(setting)) agents.set(setting, startAgentWorker(setting));
      return agents.get(setting)!;
    };
    const startAgentWorker = async (setting: ServerSetting): Promise<AgentTarget> => {
      const target = await server(setting);
      const taskQueue = `bench-${randomUUID()}`;
      // Production settings: the worker caches workflows (no forced replay), as `npm run worker` does.
      runWorker(
        await createAgentWorker({
          connection: target.nativeConnection,
          namespace: target.namespace,
          taskQueue,
          tools: [...builtInTools, ...benchTools],
          env: {},
          workspaceRoot: workspace,
          workflowBundle: { code: bundle.code },
          activityOverrides: { callModel: model.callModel },
        }),
      );
      return {
        server: target,
        client: new Client({ connection: target.connection, namespace: target.namespace, dataConverter }),
        taskQueue,
      };
    };
    const main = await agentOn('project');
    const environment: BenchEnvironment = {
      client: main.client,
      taskQueue: main.taskQueue,
      bundleCode: bundle.code,
      dataConverter,
      model,
      workspace,
      server,
      agentOn,
      runWorker,
      temporaryDirectory,
      close,
    };
    return environment;
  } catch (error) {
    await close();
    throw error;
  }
}
