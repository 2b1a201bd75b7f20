import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { agentWorkflowType } from '../../workflows/definitions';
import { runCli } from '../support/cli';
import { countEvents, EventType, finalAttempts, workflowExecutionFailure } from '../support/fault-history';
import { fetchEvents, scheduledActivities } from '../support/history';
import { connectToTestServer, createTestWorker, uniqueTaskQueue, resolved } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

// Row 6: bad input is refused before anything runs. The CLI exits 2 without
// starting a workflow; a workflow started by another client fails at once and
// says which field is wrong; what only the worker can check fails in prepareRun.

const missingDirectory = path.join(os.tmpdir(), `no-such-workspace-${randomUUID()}`);

let environment: TestWorkflowEnvironment;
let workspace: string;

beforeAll(async () => {
  environment = await connectToTestServer();
  workspace = await makeWorkspace();
});
afterAll(() => environment?.teardown());

describe('the CLI', () => {
  it.each<[string, (workspace: string) => string[], RegExp]>([
    ['a missing prompt', (dir) => ['run', '--workspace', dir], /run takes exactly one prompt/],
    ['an unknown provider', (dir) => ['run', 'hello', '--model', 'foo:bar', '--workspace', dir], /unknown provider "foo"/],
    [
      'a negative --max-iterations',
      (dir) => ['run', 'hello', '--max-iterations', '-3', '--workspace', dir],
      /maxIterations must be at least 1/,
    ],
    [
      'a workspace that does not exist',
      () => ['run', 'hello', '--workspace', missingDirectory],
      new RegExp(`workspace "${missingDirectory}" is not an existing directory`),
    ],
  ])('exits 2 on %s, says why, and starts no workflow', async (_case, args, reason) => {
    const workflowId = `bad-cli-${randomUUID()}`;
    const cli = await runCli([...args(workspace), '--id', workflowId], { AGENT_TASK_QUEUE: uniqueTaskQueue('bad-input-cli') });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(reason);
    expect(cli.stdout).toBe('');
    await expect(environment.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('exits 2 naming a tool its own worker does not have, before starting anything', async () => {
    const workflowId = `bad-cli-${randomUUID()}`;
    const cli = await runCli(['run', 'hello', '--tools', 'read_file,teleport', '--workspace', workspace, '--id', workflowId], {
      AGENT_TASK_QUEUE: uniqueTaskQueue('bad-input-cli'),
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/unknown tools: teleport; registered tools: read_file, write_file/);
    await expect(environment.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });
});

describe('a workflow started directly', () => {
  async function failedStart(input: unknown) {
    const taskQueue = uniqueTaskQueue('bad-input');
    const workflowId = `bad-input-${randomUUID()}`;
    const worker = await createTestWorker(environment, { taskQueue, env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    const failure = await worker
      .runUntil(environment.client.workflow.execute(agentWorkflowType, { taskQueue, workflowId, args: [input] }))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    return { cause: (failure as WorkflowFailedError).cause, events: await fetchEvents(environment.client, workflowId) };
  }

  const given = () => ({ prompt: 'hello', model: 'openai:gpt-4o-mini', workspace });
  const valid = () => resolved(given());

  it.each<[string, () => unknown, RegExp]>([
    ['maxIterations: -1', () => ({ ...valid(), maxIterations: -1 }), /maxIterations: must be at least 1/],
    ['no prompt', () => ({ ...valid(), prompt: undefined }), /prompt: either a prompt or initial messages are required/],
    ['no input at all', () => undefined, /invalid agent input/],
    // Defaults are applied once, by the client: a workflow that filled them in itself would change with the code it replays on.
    [
      'input whose defaults were never resolved',
      () => given(),
      /agent: .*; maxConcurrentTools: .*; modelTimeoutSeconds: .*; context: /,
    ],
  ])('fails non-retryably with InvalidAgentInput on %s, naming the field', async (_case, input, reason) => {
    const { cause, events } = await failedStart(input());
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: 'InvalidAgentInput', nonRetryable: true, message: expect.stringMatching(reason) });
    expect(scheduledActivities(events)).toEqual([]);
    expect(countEvents(events, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)).toBe(0);
    expect(workflowExecutionFailure(events)).toEqual({ type: 'InvalidAgentInput', message: cause!.message });
  });

  it.each<[string, () => unknown, string]>([
    [
      'a workspace that does not exist',
      () => ({ ...valid(), workspace: missingDirectory }),
      `workspace "${missingDirectory}" is not an existing directory`,
    ],
    ['a tool the worker does not have', () => ({ ...valid(), tools: ['read_file', 'teleport'] }), 'unknown tools: teleport'],
    [
      'a provider the worker does not have',
      () => ({ ...valid(), model: 'foo:bar' }),
      'unknown provider "foo" in model "foo:bar"',
    ],
    ['an agent the worker does not have', () => ({ ...valid(), agent: 'nobody' }), 'unknown agent "nobody"'],
  ])('fails with AgentConfigurationError from prepareRun, first attempt only, on %s', async (_case, input, reason) => {
    const { cause, events } = await failedStart(input());
    // The run's own failure carries the worker's reason, so the CLI and the Web UI show it first-hand.
    expect(cause).toMatchObject({
      type: 'AgentConfigurationError',
      nonRetryable: true,
      message: expect.stringContaining(reason),
    });
    expect(cause?.cause).toBeInstanceOf(ActivityFailure);
    expect((cause?.cause as ActivityFailure).activityType).toBe('prepareRun');
    expect(finalAttempts(events, 'prepareRun')).toEqual([{ activityType: 'prepareRun', attempt: 1 }]);
    expect(scheduledActivities(events).map((activity) => activity.activityType)).toEqual(['prepareRun']);
    expect(workflowExecutionFailure(events)).toEqual({ type: 'AgentConfigurationError', message: cause!.message });
  });
});
