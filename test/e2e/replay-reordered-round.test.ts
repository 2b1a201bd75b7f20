import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NativeConnection, bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import type { ToolResultMessage } from '../../core/messages';
import { messagesQuery } from '../../workflows/definitions';
import { workflowsPath } from '../../worker/agent-plugin';
import { createAgentWorker } from '../../worker/create-worker';
import { lastJsonLine, runCli } from '../support/cli';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { connectToTestServer, inProcessTestWorker, testWorkspaceRoot, uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// Issue 30, item 2: a change that starts a round's tool activities in reverse order. With positional activity ids
// `agent replay` passed it, against the server and against files, and a run continued on it paired each recorded
// result with the other call. Tool activities now take their ids from their call ids: the gate catches the change.

jest.setTimeout(240_000);

let server: FakeModelServer;
beforeAll(async () => {
  server = await FakeModelServer.start();
});
afterAll(() => server?.close());

/** This checkout's workflow code with the round reversed (test/fixtures/versioning/reversed-tool-round.ts). */
async function reversedBundle(): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger: new DefaultLogger('WARN'),
    workflowInterceptorModules: [path.join(__dirname, '..', 'fixtures', 'versioning', 'reversed-tool-round.ts')],
  });
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'reversed-round-')), 'reversed.js');
  await writeFile(file, code);
  return file;
}

it('catches a round started in reverse order: agent replay exits 1 against the server and against the file, and no result goes to the other call', async () => {
  const taskQueue = uniqueTaskQueue('reordered-round');
  const env = { ...server.providerEnv, AGENT_TASK_QUEUE: taskQueue };
  const workspace = await makeWorkspace({ 'alpha.txt': 'token-alpha', 'beta.txt': 'token-beta' });
  server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'call_alpha', name: 'read_file', arguments: { path: 'alpha.txt' } },
        { id: 'call_beta', name: 'read_file', arguments: { path: 'beta.txt' } },
      ],
    }),
    openaiReply({ content: 'alpha says token-alpha, beta says token-beta' }),
  );
  const workflowId = `reordered-round-${Date.now()}`;
  const run = await runCli(['run', 'Read alpha.txt and beta.txt.', '--workspace', workspace, '--json', '--id', workflowId], env);
  expect(run).toMatchObject({ code: 0 });
  const { runId } = lastJsonLine(run.stdout);
  const bundle = await reversedBundle();
  // Recorded on the shipped code: each call got its own file, and each activity carries its call's id.
  const toolMessages = server.requests[1].body.messages.filter((message: { role: string }) => message.role === 'tool');
  expect(
    toolMessages.map((message: { tool_call_id: string; content: string }) => [message.tool_call_id, message.content]),
  ).toEqual([
    ['call_alpha', expect.stringContaining('token-alpha')],
    ['call_beta', expect.stringContaining('token-beta')],
  ]);
  const environment = await connectToTestServer();
  try {
    const scheduled = (await fetchEvents(environment.client, workflowId)).flatMap(
      (event) => event.activityTaskScheduledEventAttributes ?? [],
    );
    expect(scheduled.filter((attributes) => attributes.activityType?.name === 'read_file').map((a) => a.activityId)).toEqual([
      'tool-call_alpha',
      'tool-call_beta',
    ]);

    // The gate against the server: the shipped code replays the run; the reversed code does not.
    const query = ['replay', '--query', `WorkflowId = '${workflowId}'`];
    const shipped = await waitFor('the run in the replay listing', async () => {
      const result = await runCli(query, env);
      return result.stdout.includes(workflowId) && result;
    });
    expect(shipped.stdout).toBe(`${workflowId} ${runId} ok\n1 run replayed: 1 ok, 0 FAILED\n`);
    const reversed = await runCli(query, { ...env, AGENT_WORKFLOW_BUNDLE: bundle });
    expect(reversed.code).toBe(1);
    expect(reversed.stdout).toContain(`${workflowId} ${runId} FAILED: `);
    expect(reversed.stdout).toMatch(/'tool-call_alpha'.*'tool-call_beta'/);

    // The gate against the file `agent history --out` saved.
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'reordered-history-')), 'run.json');
    expect((await runCli(['history', workflowId, '--out', file], env)).code).toBe(0);
    expect((await runCli(['replay', '--file', file], env)).code).toBe(0);
    const fromFile = await runCli(['replay', '--file', file], { ...env, AGENT_WORKFLOW_BUNDLE: bundle });
    expect(fromFile.code).toBe(1);
    expect(fromFile.stdout).toContain(`${workflowId} ${runId} FAILED: `);

    // A worker on the reversed code that picks the run up (here: to answer a query on it, which replays its whole
    // history) must not pair alpha's call with beta's file. It fails the task instead of answering.
    const connection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
    const worker = await createAgentWorker({
      connection,
      namespace: 'default',
      taskQueue,
      env: server.providerEnv,
      workspaceRoot: testWorkspaceRoot,
      workflowBundle: { codePath: bundle },
      overrides: inProcessTestWorker,
    });
    const conversation = await worker.runUntil(
      environment.client.workflow
        .getHandle(workflowId)
        .query(messagesQuery)
        .then(
          (messages) => ({ messages }),
          (error: Error) => ({ error: error.message }),
        ),
    );
    await connection.close();
    const results =
      'messages' in conversation ? conversation.messages.filter((m): m is ToolResultMessage => m.role === 'tool') : [];
    // Today's failure, had it happened: [call_alpha, token-beta] and [call_beta, token-alpha].
    expect(results.map((result) => [result.toolCallId, result.content])).toEqual([]);
    expect(conversation).toEqual({ error: expect.stringMatching(/activity id/i) });
  } finally {
    await environment.teardown();
  }
});
