import { DefaultLogger } from '@temporalio/worker';
import { MockActivityEnvironment } from '@temporalio/testing';
import { remoteA2AAgent } from '../../a2a/remote-agent';
import { ApplicationFailure } from '@temporalio/common';
import { toolActivity, type ToolActivityInput } from '../../activities/tool-activity';
import { failureTypes } from '../../core/errors';
import type { ToolQuestionOutput } from '../../core/tool-question';
import { maxToolOutputChars } from '../../core/limits';
import { startRemoteA2AAgent, type RemoteScript } from '../support/a2a-remote-agent';
import { testWorkspaceRoot } from '../support/temporal';
import { waitFor } from '../support/wait-for';

// A remote A2A agent as a tool, against @a2a-js/sdk's own server (its request handler, task store and JSON-RPC
// transport) over HTTP, the tool's activity run by Temporal's MockActivityEnvironment: what an attempt records in its
// heartbeats, and what a retried attempt does with it (follows the same remote task, sends nothing again).

let script: () => RemoteScript = () => ({ answer: 'unset' });
let remote: Awaited<ReturnType<typeof startRemoteA2AAgent>>;
beforeAll(async () => (remote = await startRemoteA2AAgent(() => script())));
afterAll(() => remote?.close());
beforeEach(() => {
  remote.executions.length = 0;
  remote.headersSeen.length = 0;
  remote.methods.length = 0;
  remote.taskIds.length = 0;
});

const tool = () =>
  remoteA2AAgent({
    name: 'remote_helper',
    description: 'Asks the remote helper.',
    cardUrl: remote.cardUrl,
    headers: () => ({ 'x-remote-key': 'the-remote-api-key' }),
  });

function attempt(heartbeatDetails?: unknown): { environment: MockActivityEnvironment; heartbeats: unknown[] } {
  const environment = new MockActivityEnvironment(
    { heartbeatDetails, activityId: 'call_1', activityType: 'remote_helper' },
    { logger: new DefaultLogger('ERROR') },
  );
  const heartbeats: unknown[] = [];
  environment.on('heartbeat', (details: unknown) => heartbeats.push(details));
  return { environment, heartbeats };
}

const run = (environment: MockActivityEnvironment) =>
  environment
    .run(toolActivity(tool(), testWorkspaceRoot), {
      arguments: { message: 'What is 2 + 2?' },
      workspace: testWorkspaceRoot,
    })
    .then((output) => output as string);

it("returns the remote task's answer, bounded, recording the task's id and no secret in the heartbeats", async () => {
  // The remote is untrusted: an answer far over the tool output bound is cut before it can reach history.
  script = () => ({ answer: `Four.${'x'.repeat(maxToolOutputChars * 2)}` });
  const { environment, heartbeats } = attempt();
  const output = await run(environment);
  expect(output.startsWith('Four.x')).toBe(true);
  expect(output.length).toBeLessThan(maxToolOutputChars + 200);
  expect(remote.executions).toHaveLength(1);
  expect(heartbeats).toEqual([{ remoteTaskId: expect.any(String) }]);
  // The key went to the remote with every request, and nowhere else.
  expect(remote.headersSeen.every((header) => header === 'the-remote-api-key')).toBe(true);
  expect(JSON.stringify(heartbeats)).not.toContain('the-remote-api-key');
});

it('a retried attempt follows the remote task the lost attempt started, and sends the message once', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  script = () => ({ answer: 'Four, after a while.', gate });
  const first = attempt();
  const lost = run(first.environment).catch((error: unknown) => error);
  await waitFor('the remote task recorded', () => first.heartbeats.length === 1);
  // The attempt dies (its worker killed): Temporal gives the next attempt the last heartbeat's details.
  first.environment.cancel();
  await lost;
  const second = attempt(first.heartbeats.at(-1));
  const resumed = run(second.environment);
  await waitFor('the retry to follow the task', () => remote.methods.includes('SubscribeToTask'));
  release();
  expect(await resumed).toBe('Four, after a while.');
  expect(remote.executions).toHaveLength(1);
  expect(remote.methods).toEqual(['SendStreamingMessage', 'GetTask', 'SubscribeToTask']);
  // Nothing new to record: the same task.
  expect(second.heartbeats).toEqual([]);
});

const asking = (environment: MockActivityEnvironment, answer?: ToolActivityInput['answer']) =>
  environment.run(toolActivity(tool(), testWorkspaceRoot), {
    arguments: { message: 'Book me a train.' },
    workspace: testWorkspaceRoot,
    mayAsk: true,
    ...(answer && { answer }),
  });

it("puts the remote task's question to the person, and sends their answer to that same task", async () => {
  script = () => ({ ask: 'Which day?', answer: 'Booked' });
  const asked = await asking(attempt().environment);
  expect(asked).toEqual({
    question: {
      text: 'Which day?',
      schema: expect.objectContaining({ type: 'object' }),
      resume: { remoteTaskId: expect.any(String) },
    },
  });
  const { resume } = (asked as ToolQuestionOutput).question;
  const answered = await asking(attempt().environment, { accepted: true, content: { answer: 'Tuesday' }, resume });
  expect(answered).toBe('Booked (you said: Tuesday)');
  // Two messages, the second on the task the first started: one remote task, not two.
  expect(remote.executions).toHaveLength(2);
  expect(remote.methods).toEqual(['SendStreamingMessage', 'SendStreamingMessage']);
  const { remoteTaskId } = resume as { remoteTaskId: string };
  expect(remote.taskIds).toEqual([remoteTaskId, remoteTaskId]);
});

it('cancels the remote task when the person declines, and the model reads that they did', async () => {
  script = () => ({ ask: 'Which day?', answer: 'Booked' });
  const asked = (await asking(attempt().environment)) as ToolQuestionOutput;
  const declined = await asking(attempt().environment, {
    accepted: false,
    reason: 'denied: not this week',
    resume: asked.question.resume,
  }).catch((error: unknown) => error);
  expect(declined).toMatchObject({
    type: failureTypes.toolRefused,
    nonRetryable: true,
    message: expect.stringContaining(
      "the person declined to answer the remote agent remote_helper's question (denied: not this week)",
    ),
  });
  expect(remote.methods).toEqual(['SendStreamingMessage', 'CancelTask']);
});

it('gives the model a failed remote task as an error result with what the remote said, not retried', async () => {
  script = () => ({ fail: 'the printer is on fire', answer: 'unused' });
  const failed = await run(attempt().environment).catch((error: unknown) => error);
  // Non-retryable: Temporal spends no further attempt on it, and the workflow hands the message to the model as is.
  expect(failed).toBeInstanceOf(ApplicationFailure);
  expect(failed).toMatchObject({
    type: failureTypes.toolRefused,
    nonRetryable: true,
    message: 'the remote agent remote_helper ended its task TASK_STATE_FAILED: the printer is on fire',
  });
  expect(remote.executions).toHaveLength(1);
});

it('an answer whose attempt was lost is not sent again: the retry follows the task the answer went to', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let executions = 0;
  script = () => ({ ask: 'Which day?', answer: 'Booked', ...(executions++ > 0 && { gate }) });
  const asked = (await asking(attempt().environment)) as ToolQuestionOutput;
  const answer = { accepted: true as const, content: { answer: 'Tuesday' }, resume: asked.question.resume };
  const first = attempt();
  const lost = asking(first.environment, answer).catch((error: unknown) => error);
  // The task is recorded before the answer goes, and the remote is working on the answer when the attempt dies.
  await waitFor('the answer taken', () => remote.executions.length === 2 && first.heartbeats.length > 0);
  first.environment.cancel();
  await lost;
  const second = attempt(first.heartbeats.at(-1));
  const resumed = asking(second.environment, answer);
  await waitFor('the retry to follow the task', () => remote.methods.includes('SubscribeToTask'));
  release();
  expect(await resumed).toBe('Booked (you said: Tuesday)');
  expect(remote.executions).toHaveLength(2);
  expect(remote.methods).toEqual(['SendStreamingMessage', 'SendStreamingMessage', 'GetTask', 'SubscribeToTask']);
});
