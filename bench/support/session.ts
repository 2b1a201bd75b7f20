import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AgentResult } from '../../core/result';
import { startAgent } from '../../client/start-agent';
import type { AgentTarget, BenchEnvironment } from './environment';
import { finishRun, type FinishedRun } from './finished-run';
import type { LoadScript } from './load-model';

export interface SessionOptions {
  /** Goes into the workflow id. */
  name: string;
  script: LoadScript;
  tools: string[];
  maxIterations: number;
  maxConcurrentTools?: number;
  /** A session still open after this long is terminated and reported as such. */
  deadlineMs: number;
  /** Where the run goes: our agent on the project's server unless given. */
  target?: AgentTarget;
}

/** A finished benchmark session of our agent: every run of its workflow id and how it ended. */
export type Session = FinishedRun<AgentResult>;

/** One run of our agent with the load model, from start to its end (or its deadline). */
export async function runSession(environment: BenchEnvironment, options: SessionOptions): Promise<Session> {
  const workflowId = `bench-${options.name}-${randomUUID().slice(0, 8)}`;
  environment.model.add(workflowId, options.script);
  const target = options.target ?? environment;
  const startedAt = performance.now();
  // startAgent validates the input and starts the run with it resolved, as the CLI does.
  const handle = await startAgent(
    target.client,
    {
      prompt: `benchmark: ${options.name}`,
      model: 'openai:bench-scripted',
      tools: options.tools,
      maxIterations: options.maxIterations,
      maxConcurrentTools: options.maxConcurrentTools,
      workspace: environment.workspace,
    },
    { taskQueue: target.taskQueue, workflowId },
  );
  return finishRun<AgentResult>(target.client, handle, { startedAt, deadlineMs: options.deadlineMs });
}
