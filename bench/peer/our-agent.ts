import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AgentResult } from '../../core/result';
import { startAgent } from '../../client/start-agent';
import { builtInTools } from '../../tools';
import { createAgentWorker } from '../../worker/create-worker';
import { benchText, benchTools } from '../support/bench-tools';
import type { AgentTarget, BenchEnvironment } from '../support/environment';
import { finishRun, type FinishedRun } from '../support/finished-run';

/**
 * Our agent as a user runs it against an OpenAI-compatible server: the
 * production worker with the real callModel (openai SDK, Chat Completions),
 * OPENAI_BASE_URL pointing at the benchmark's scripted model.
 */
export async function startOurWorker(environment: BenchEnvironment, modelBaseUrl: string): Promise<AgentTarget> {
  const { client } = await environment.agentOn('project');
  const server = await environment.server('project');
  const taskQueue = `bench-ours-${randomUUID()}`;
  environment.runWorker(
    await createAgentWorker({
      connection: server.nativeConnection,
      namespace: server.namespace,
      taskQueue,
      tools: [...builtInTools, ...benchTools],
      env: { OPENAI_BASE_URL: modelBaseUrl, OPENAI_API_KEY: 'sk-bench' },
      // The runs' workspace is the benchmark's temporary directory, which the worker must accept.
      workspaceRoot: environment.workspace,
      workflowBundle: { code: environment.bundleCode },
    }),
  );
  return { server, client, taskQueue };
}

export async function runOurs(
  environment: BenchEnvironment,
  target: AgentTarget,
  options: { model: string; toolTurns: number; deadlineMs: number },
): Promise<FinishedRun<AgentResult>> {
  const startedAt = performance.now();
  const handle = await startAgent(
    target.client,
    {
      prompt: `benchmark: ${options.toolTurns} tool turns`,
      model: `openai:${options.model}`,
      tools: [benchText.name],
      maxIterations: options.toolTurns + 10,
      workspace: environment.workspace,
    },
    { taskQueue: target.taskQueue, workflowId: `bench-ours-${options.toolTurns}-${randomUUID().slice(0, 8)}` },
  );
  return finishRun<AgentResult>(target.client, handle, { startedAt, deadlineMs: options.deadlineMs, progressEveryMs: 10_000 });
}
