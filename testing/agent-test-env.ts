import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker, WorkerOptions } from '@temporalio/worker';
import type { Agent } from '../agents/define-agent';
import type { Definitions } from '../agents/registry';
import { startAgent } from '../client/start-agent';
import { parseModelId } from '../core/model-id';
import type { AgentInput } from '../core/resolve-input';
import type { AgentResult } from '../core/result';
import { createAgentWorker } from '../worker/create-worker';
import { runEval, type EvalOptions } from '../evals/run-eval';
import type { Candidate, EvalReport, GraderSpec } from '../core/eval-types';
import { agentRun, agentSession, type AgentRun, type AgentSession } from './agent-run';
import { answeredBy } from './scripted-agents';
import { scriptedModelId, type ScriptedModel } from './scripted-model';
import { startTestEnvironment, type TestServer } from './test-environment';

export interface AgentTestEnvOptions extends Definitions {
  /**
   * Answers every model call of your agents (and of their subagents and handoffs): the env registers its provider and
   * runs copies of your agents whose model is the scripted one. Without it, your agents call their real providers.
   */
  model?: ScriptedModel;
  /** Default `time-skipping`; see TestServer. */
  server?: TestServer;
  /** The time-skipping test server's executable, when the SDK cannot download it (default: TEMPORAL_TEST_SERVER_PATH). */
  testServerPath?: string;
  /** The directory runs work in (default: a new temporary directory); it is also the worker's workspace root. */
  workspace?: string;
  /** Your own workflows, when they run agents as children (default: the agent workflow alone). */
  workflowsPath?: string;
  /** A prebuilt workflow bundle (default: bundled when the env starts, a few seconds). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** The environment of the model and tool activities and of the data converter (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Replay every workflow task from its history (the worker keeps no run in its cache), so that a test fails on
   * workflow code that is not deterministic. Default true.
   */
  replayEveryTask?: boolean;
}

/** An eval in the test env: runEval's options; the env's task queue, and its workspace unless given. */
export type TestEvalOptions = Omit<EvalOptions, 'taskQueue' | 'workspace'> & { workspace?: string };

/** What a test runs: a prompt for the first of `agents`, or the whole input (the env's workspace is filled in). */
export type TestInput = string | (Omit<AgentInput, 'workspace'> & { workspace?: string });

export interface AgentTestEnv {
  /** The scripted model, with every request it received. */
  model: ScriptedModel | undefined;
  client: Client;
  taskQueue: string;
  workspace: string;
  /** Temporal's test environment, for what the kit does not wrap (e.g. `sleep` under time skipping). */
  testEnv: TestWorkflowEnvironment;
  /** Runs the agent to its end and returns its result. */
  run(input: TestInput): Promise<AgentResult>;
  /** Starts a run and returns at once: for approvals, status and history while it runs. */
  start(input: TestInput, options?: { workflowId?: string }): Promise<AgentRun>;
  /** Starts a session (no first message needed): send() messages to it, end() it. */
  session(input?: Partial<Exclude<TestInput, string>>, options?: { workflowId?: string }): Promise<AgentSession>;
  /**
   * Runs an eval (runEval, docs/evals.md) on the env's worker and returns its report: with a scripted model, every
   * candidate's and judge's model calls are answered by it (a candidate without an agent is the first of `agents`),
   * so a prompt is unit-tested with no API.
   */
  runEval(options: TestEvalOptions): Promise<EvalReport>;
  /** A run's history, as `agent history --out` writes it and the replay helper reads it. */
  history(workflowId: string): Promise<temporal.api.history.v1.IHistory>;
  /** Writes a run's history to a file as `agent history --out` does: a fixture for replay tests. */
  saveHistory(workflowId: string, file: string): Promise<void>;
  /** Stops the worker and the server (or the connection to yours). */
  shutdown(): Promise<void>;
}

/** The built-in judge agent's name (evals/graders/): its model calls are the judges'. */
const judgeAgentName = 'eval-judge';

/**
 * Runs your agents on a real Temporal worker in this process (so your tools and the scripted model run here, where the
 * test reads what they saw), against Temporal's time-skipping test server by default.
 *
 *   const model = scriptedModel([{ toolCalls: [{ name: 'lookup_order', arguments: { id: '7' } }] }, 'Order 7 shipped.']);
 *   const env = await createAgentTestEnv({ agents: [support], model });
 *   const result = await env.run('Where is order 7?');
 */
export async function createAgentTestEnv(options: AgentTestEnvOptions = {}): Promise<AgentTestEnv> {
  const env = options.env ?? process.env;
  const workspace = options.workspace ?? (await mkdtemp(path.join(os.tmpdir(), 'agent-test-')));
  const model = options.model;
  const agents: Agent[] = model ? answeredBy(model.provider.name, options.agents ?? []) : (options.agents ?? []);
  const testEnv = await startTestEnvironment(options.server ?? 'time-skipping', { testServerPath: options.testServerPath, env });
  let worker: Worker;
  const taskQueue = `agent-test-${randomUUID()}`;
  try {
    worker = await createAgentWorker({
      connection: testEnv.nativeConnection,
      namespace: testEnv.namespace ?? 'default',
      taskQueue,
      agents,
      tools: options.tools,
      providers: [...(model ? [model.provider] : []), ...(options.providers ?? [])],
      mcpServers: options.mcpServers,
      env,
      workspaceRoot: workspace,
      workflowBundle: options.workflowBundle,
      overrides: {
        ...(options.workflowsPath && !options.workflowBundle && { workflowsPath: options.workflowsPath }),
        ...(options.replayEveryTask !== false && { maxCachedWorkflows: 0 }),
      },
    });
  } catch (error) {
    await testEnv.teardown();
    throw error;
  }
  const running = worker.run();
  // A worker that stops on its own (a fatal error) fails the next call instead of leaving the test waiting.
  let stopped: unknown;
  running.catch((error) => (stopped = error));

  const firstAgent = options.agents?.[0]?.name;
  const inputOf = (input: TestInput, session = false): AgentInput => {
    const given = typeof input === 'string' ? { prompt: input } : input;
    const resolvedInput: AgentInput = {
      ...(firstAgent !== undefined && given.agent === undefined && { agent: firstAgent }),
      ...given,
      workspace: given.workspace ?? workspace,
      ...(session && { session: given.session ?? {} }),
    };
    // A run that gives its own model (the default agent needs one) is answered by the scripted model too.
    if (model && resolvedInput.model && parseModelId(resolvedInput.model).provider !== model.provider.name) {
      resolvedInput.model = scriptedModelId(model.provider.name, resolvedInput.agent ?? 'default', resolvedInput.model);
    }
    return resolvedInput;
  };
  const start = async (input: TestInput, session: boolean, workflowId?: string) => {
    if (stopped) throw new Error(`the test worker stopped: ${(stopped as Error).message}`, { cause: stopped });
    return startAgent(testEnv.client, inputOf(input, session), { taskQueue, workflowId: workflowId ?? `test-${randomUUID()}` });
  };

  // A model a candidate or a judge names is answered by the scripted model too, as a run's own model is.
  const scripted = (agent: string, given: string | undefined): string | undefined =>
    model && given && parseModelId(given).provider !== model.provider.name
      ? scriptedModelId(model.provider.name, agent, given)
      : given;
  const candidateOf = (candidate: Candidate): Candidate => {
    const agent = candidate.agent ?? firstAgent;
    const candidateModel = scripted(agent ?? 'default', candidate.model);
    return {
      ...candidate,
      ...(agent !== undefined && { agent }),
      ...(candidateModel !== undefined && { model: candidateModel }),
    };
  };
  const graderOf = (spec: GraderSpec): GraderSpec =>
    spec.type === 'judge' ? { ...spec, model: scripted(judgeAgentName, spec.model)! } : spec;

  return {
    model,
    client: testEnv.client,
    taskQueue,
    workspace,
    testEnv,
    run: async (input) => (await start(input, false)).result(),
    start: async (input, startOptions) => agentRun(await start(input, false, startOptions?.workflowId)),
    session: async (input = {}, startOptions) => agentSession(await start(input, true, startOptions?.workflowId)),
    runEval: (evalOptions) =>
      runEval(testEnv.client, {
        ...evalOptions,
        candidates: evalOptions.candidates.map(candidateOf),
        ...(evalOptions.graders && { graders: evalOptions.graders.map(graderOf) }),
        cases: evalOptions.cases.map((evalCase) =>
          evalCase.graders ? { ...evalCase, graders: evalCase.graders.map(graderOf) } : evalCase,
        ),
        workspace: evalOptions.workspace ?? workspace,
        taskQueue,
      }),
    history: (workflowId) => testEnv.client.workflow.getHandle(workflowId).fetchHistory(),
    async saveHistory(workflowId, file) {
      const history = await testEnv.client.workflow.getHandle(workflowId).fetchHistory();
      // Temporal's test server leaves the workflow id out of the started event, where real servers record it and
      // replay reads it (a run names its children after it): filled in, the file reads like one from a server.
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      if (started && !started.workflowId) started.workflowId = workflowId;
      await writeFile(file, historyToJSON(history));
    },
    async shutdown() {
      // A worker that already stopped (a fatal error) refuses to shut down again: the server must still stop.
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => {});
      await testEnv.teardown();
    },
  };
}
