import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createOpenAI } from '@ai-sdk/openai';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { BenchEnvironment } from '../support/environment';
import { finishRun, type FinishedRun } from '../support/finished-run';
import { quietLogger } from '../support/log';
import { peerActivities } from './activities';
import type { peerAgent } from './workflows';

export interface PeerTarget {
  client: Client;
  taskQueue: string;
  /** The peer's workflow bundle, built through the plugin (it adds the Web API polyfills the AI SDK needs); replay uses it. */
  bundleCode: string;
}

/**
 * A worker for the peer agent on the project's dev server, assembled as the
 * @temporalio/ai-sdk documentation does: the AiSdkPlugin with an @ai-sdk/openai
 * provider (its default model, on the Responses API) whose base URL is the
 * benchmark's scripted model, the tool activity, and the SDK's default options
 * and data converter.
 */
export async function startPeerWorker(environment: BenchEnvironment, modelBaseUrl: string): Promise<PeerTarget> {
  const plugin = new AiSdkPlugin({ modelProvider: createOpenAI({ baseURL: modelBaseUrl, apiKey: 'sk-bench' }) });
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    plugins: [plugin],
    logger: quietLogger,
  });
  const server = await environment.server('project');
  const taskQueue = `bench-peer-${randomUUID()}`;
  environment.runWorker(
    await Worker.create({
      connection: server.nativeConnection,
      namespace: server.namespace,
      taskQueue,
      plugins: [plugin],
      workflowBundle: { code: bundle.code },
      activities: peerActivities,
    }),
  );
  return {
    client: new Client({ connection: server.connection, namespace: server.namespace }),
    taskQueue,
    bundleCode: bundle.code,
  };
}

export async function runPeer(
  target: PeerTarget,
  options: { model: string; toolTurns: number; deadlineMs: number },
): Promise<FinishedRun<string>> {
  const startedAt = performance.now();
  const handle = await target.client.workflow.start<typeof peerAgent>('peerAgent', {
    taskQueue: target.taskQueue,
    workflowId: `bench-peer-${options.toolTurns}-${randomUUID().slice(0, 8)}`,
    args: [{ model: options.model, prompt: `benchmark: ${options.toolTurns} tool turns`, maxSteps: options.toolTurns + 1 }],
  });
  return finishRun<string>(target.client, handle, { startedAt, deadlineMs: options.deadlineMs, progressEveryMs: 10_000 });
}
