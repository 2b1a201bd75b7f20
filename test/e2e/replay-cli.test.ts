import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, NativeConnection } from '@temporalio/worker';
import { defineAgent } from '../../agents/define-agent';
import { createAgentWorker } from '../../worker/create-worker';
import { collect, lastJsonLine, runCli, runCliProcess, spawnCli } from '../support/cli';
import { newKeyEntry } from '../support/encryption';
import { createTestBucket, filesUnder, privateDirectories } from '../support/object-store';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { replayGateNamespace } from '../support/global-setup';
import { connectToTestServer, uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// `agent replay`, the gate before a deploy (issue 22): runs recorded on the server, and history files, replayed
// against this checkout's workflow code with the worker's bundle, plugins and data converter.

let server: FakeModelServer;
beforeAll(async () => {
  server = await FakeModelServer.start();
});
afterAll(() => server?.close());

it('replays a run recorded on the server, encrypted and with a payload in the store, with the same keys and store: exit 0 and one ok line for it', async () => {
  const keys = newKeyEntry('k1');
  // Over the 256 KiB threshold: the model's answer is stored outside history, as a claim on AGENT_PAYLOAD_DIR.
  const largeAnswer = `It says alpha! ${'a'.repeat(300 * 1024)}`;
  const env = {
    ...server.providerEnv,
    AGENT_TASK_QUEUE: uniqueTaskQueue('replay-cli'),
    AGENT_ENCRYPTION_KEYS: keys,
    AGENT_PAYLOAD_DIR: await mkdtemp(path.join(os.tmpdir(), 'replay-payloads-')),
  };
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha!' });
  server.enqueue(
    openaiReply({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
    openaiReply({ content: largeAnswer }),
  );
  const workflowId = `replay-cli-${Date.now()}`;
  const run = await runCli(['run', 'What does alpha.txt say?', '--workspace', workspace, '--json', '--id', workflowId], env);
  expect(run.code).toBe(0);
  const { runId } = lastJsonLine(run.stdout);
  const query = ['--query', `WorkflowId = '${workflowId}'`];

  // Visibility lags a run's close by a moment: wait until the query lists it.
  // In a process of its own: its stderr is all the process printed (the replay worker's and Node's own lines too).
  const replay = await waitFor('the run in the replay listing', async () => {
    const result = await runCliProcess(['replay', ...query], env);
    return result.stdout.includes(workflowId) && result;
  });
  expect(replay.stderr).toBe('');
  expect(replay.code).toBe(0);
  expect(replay.stdout).toBe(`${workflowId} ${runId} ok\n1 run replayed: 1 ok, 0 FAILED\n`);

  // The keys are what let it replay: under another key the encrypted input cannot be read, and the gate fails.
  const otherKey = await runCli(['replay', ...query], { ...env, AGENT_ENCRYPTION_KEYS: newKeyEntry('k2') });
  expect(otherKey.code).toBe(1);
  expect(otherKey.stdout).toContain(
    `${workflowId} ${runId} FAILED: a payload is encrypted with key "k1", which is not among this process's keys (k2)`,
  );

  // And so is the payload store: without the stored answer its claim cannot be read, and the gate fails.
  const emptyStore = await runCli(['replay', ...query], {
    ...env,
    AGENT_PAYLOAD_DIR: await mkdtemp(path.join(os.tmpdir(), 'replay-empty-')),
  });
  expect(emptyStore.code).toBe(1);
  expect(emptyStore.stdout).toMatch(new RegExp(`^${workflowId} ${runId} FAILED: payload [0-9a-f]{64} is missing from `));
});

it('fails histories this code did not make with exit 1, naming each run, its diverging event and the command or patch that differed', async () => {
  // A recorded run whose first model call was scheduled, in the history, as an activity this code does not call.
  const histories = path.join(__dirname, '..', 'replay', 'histories');
  const recorded = JSON.parse(await readFile(path.join(histories, 'subagent.json'), 'utf8'));
  const modelCall = recorded.events.find(
    (event: { activityTaskScheduledEventAttributes?: { activityType: { name: string } } }) =>
      event.activityTaskScheduledEventAttributes?.activityType.name === 'callModel',
  );
  modelCall.activityTaskScheduledEventAttributes.activityType.name = 'callModelBeforeTheDeploy';
  const directory = await mkdtemp(path.join(os.tmpdir(), 'replay-files-'));
  const changed = path.join(directory, 'changed.json');
  await writeFile(changed, JSON.stringify(recorded));
  const runId = recorded.events[0].workflowExecutionStartedEventAttributes.originalExecutionRunId;

  // A recorded run whose patch marker names a patch this code does not call (the code's patch was renamed).
  const forked = JSON.parse(await readFile(path.join(histories, 'agent-run-fork.json'), 'utf8'));
  const patchMarker = forked.events.find(
    (event: { markerRecordedEventAttributes?: { markerName: string } }) =>
      event.markerRecordedEventAttributes?.markerName === 'core_patch',
  );
  const patchPayload = patchMarker.markerRecordedEventAttributes.details['patch-data'].payloads[0];
  const patch = JSON.parse(Buffer.from(patchPayload.data, 'base64').toString('utf8'));
  patchPayload.data = Buffer.from(JSON.stringify({ ...patch, id: `${patch.id}-renamed` })).toString('base64');
  const unpatched = path.join(directory, 'unpatched.json');
  await writeFile(unpatched, JSON.stringify(forked));

  const replay = await runCli([
    'replay',
    '--file',
    path.join(histories, 'subagent.json'),
    '--file',
    changed,
    '--file',
    unpatched,
  ]);
  expect(replay.code).toBe(1);
  expect(replay.stdout.split('\n')).toEqual([
    `replay-subagent ${runId} ok`,
    `replay-subagent ${runId} FAILED: event ${modelCall.eventId} (ActivityTaskScheduled): the history has activity type 'callModelBeforeTheDeploy' where this code's command has 'callModel'`,
    `replay-agent-run-fork ${forked.events[0].workflowExecutionStartedEventAttributes.originalExecutionRunId} FAILED: event ${patchMarker.eventId} (MarkerRecorded): the history has patch '${patch.id}-renamed' where this code makes no patched('${patch.id}-renamed') call`,
    '3 runs replayed: 1 ok, 2 FAILED',
    '',
  ]);

  const json = await runCli(['replay', '--file', changed, '--json']);
  expect(json.code).toBe(1);
  expect(lastJsonLine(json.stdout)).toEqual({
    runs: [
      {
        workflowId: 'replay-subagent',
        runId,
        ok: false,
        error: expect.stringContaining(`event ${modelCall.eventId} (ActivityTaskScheduled)`),
        divergence: {
          eventId: Number(modelCall.eventId),
          eventType: 'ActivityTaskScheduled',
          difference: expect.stringContaining("'callModelBeforeTheDeploy'"),
        },
      },
    ],
    failed: 1,
  });
});

it('refuses bad usage with exit 2 before replaying anything', async () => {
  const cases = [
    [['replay', '--limit', '0'], '--limit must be a whole number of at least 1'],
    [['replay', '--limit', 'ten'], '--limit must be a whole number of at least 1'],
    [['replay', '--file', 'a.json', '--query', "WorkflowId = 'x'"], 'not both'],
    [['replay', 'some-id'], 'replay takes no arguments'],
    [['replay', '--file', path.join(os.tmpdir(), 'no-such-history.json')], 'cannot read the history file'],
    [['replay', '--file', path.join(__dirname, '..', '..', 'package.json')], 'is not a workflow history in JSON'],
    [['replay', '--since', 'yesterday'], "Unknown option '--since'"],
  ] as const;
  for (const [args, message] of cases) {
    const result = await runCli([...args]);
    expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
    expect(result.stderr).toContain(message);
  }
});

it('replays a run still open, from the history it has so far', async () => {
  const env = { ...server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('replay-open') };
  const workflowId = `replay-open-${Date.now()}`;
  // The model never answers: the run stays open, in its model call, its first commands in history.
  server.enqueue({ hang: true });
  const cli = spawnCli(['run', 'never answered', '--id', workflowId, '--workspace', await makeWorkspace()], env, {
    stdin: 'ignore',
  });
  const ended = collect(cli);
  const environment = await connectToTestServer();
  try {
    const handle = environment.client.workflow.getHandle(workflowId);
    await waitFor('the open run in its model call', async () =>
      ((await handle.fetchHistory()).events ?? []).some(
        (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
      ),
    );
    const replay = await waitFor('the open run in the replay listing', async () => {
      const result = await runCli(
        ['replay', '--query', `WorkflowId = '${workflowId}' AND ExecutionStatus = 'Running'`, '--json'],
        env,
      );
      return result.stdout.includes(workflowId) && result;
    });
    expect(replay.code).toBe(0);
    expect(lastJsonLine(replay.stdout)).toEqual({
      runs: [{ workflowId, runId: (await handle.describe()).runId, ok: true }],
      failed: 0,
    });
    await handle.terminate('replay test done');
  } finally {
    cli.kill();
    await ended;
    await environment.teardown();
  }
});

it('names the first event that differs when the activity type the error names was scheduled many times', async () => {
  // The second tool call (read_file) recorded as one more callModel: the history now has four, and core's error names
  // only the type. The replay of the history's prefixes finds the workflow task that diverged, where it is unique.
  const histories = path.join(__dirname, '..', 'replay', 'histories');
  const recorded = JSON.parse(await readFile(path.join(histories, 'agent-run-anthropic-write-then-read.json'), 'utf8'));
  const scheduled = recorded.events.filter(
    (event: { activityTaskScheduledEventAttributes?: unknown }) => event.activityTaskScheduledEventAttributes,
  );
  const readCall = scheduled.find(
    (event: { activityTaskScheduledEventAttributes: { activityType: { name: string } } }) =>
      event.activityTaskScheduledEventAttributes.activityType.name === 'read_file',
  );
  readCall.activityTaskScheduledEventAttributes.activityType.name = 'callModel';
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'replay-files-')), 'many-model-calls.json');
  await writeFile(file, JSON.stringify(recorded));

  const replay = await runCli(['replay', '--file', file]);
  expect(replay.code).toBe(1);
  const runId = recorded.events[0].workflowExecutionStartedEventAttributes.originalExecutionRunId;
  expect(replay.stdout.split('\n')[0]).toBe(
    `replay-agent-run-anthropic-write-then-read ${runId} FAILED: event ${readCall.eventId} (ActivityTaskScheduled): the history has activity type 'callModel' where this code's command has 'read_file'`,
  );
});

it('replays by default (no flags) every open run and the last closed ones, ours among them', async () => {
  // A namespace of its own: in `default`, the default selection would replay every other test's open runs (other
  // keys, stores and workflow changes), which took past two minutes per listing under the full suite. Only ours are
  // asserted all the same.
  const env = {
    ...server.providerEnv,
    AGENT_TASK_QUEUE: uniqueTaskQueue('replay-default'),
    TEMPORAL_NAMESPACE: replayGateNamespace,
  };
  const closedId = `replay-default-closed-${Date.now()}`;
  server.enqueue(openaiReply({ content: 'done' }));
  const closed = await runCli(['run', 'say done', '--id', closedId, '--json', '--workspace', await makeWorkspace()], env);
  expect(closed.code).toBe(0);
  const openId = `replay-default-open-${Date.now()}`;
  server.enqueue({ hang: true });
  const cli = spawnCli(['run', 'never answered', '--id', openId, '--workspace', await makeWorkspace()], env, { stdin: 'ignore' });
  const ended = collect(cli);
  const environment = await connectToTestServer(replayGateNamespace);
  try {
    const open = environment.client.workflow.getHandle(openId);
    // The CLI starts its own worker first: on a loaded machine that takes a while.
    await waitFor(
      'the open run in its model call',
      async () =>
        ((await open.fetchHistory()).events ?? []).some(
          (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
        ),
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    // Our closed run closed last, so it is among the 100 most recently closed: the server lists closed runs by
    // close time, newest first (docs/upgrades.md).
    const replay = await waitFor(
      'both runs in the default listing',
      async () => {
        const result = await runCli(['replay', '--json'], env);
        return result.stdout.includes(closedId) && result.stdout.includes(openId) && result;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    const { runs } = lastJsonLine(replay.stdout) as { runs: Array<{ workflowId: string; ok: boolean }> };
    expect(runs.filter((run) => run.workflowId === closedId || run.workflowId === openId)).toEqual([
      expect.objectContaining({ workflowId: openId, ok: true }),
      expect.objectContaining({ workflowId: closedId, ok: true }),
    ]);
    await open.terminate('replay test done');
  } finally {
    cli.kill();
    await ended;
    await environment.teardown();
  }
}, 360_000);

it('replays a run whose large payloads are in the bucket (MinIO), reading them from there alone', async () => {
  const bucket = await createTestBucket('replay');
  const worker = await privateDirectories();
  const env = { ...server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('replay-s3'), ...bucket.env, ...worker.env };
  // Over the 256 KiB threshold: the answer goes to the bucket, not into history.
  server.enqueue(openaiReply({ content: `Stored in the bucket. ${'b'.repeat(300 * 1024)}` }));
  const workflowId = `replay-s3-${Date.now()}`;
  const run = await runCli(['run', 'answer at length', '--id', workflowId, '--json', '--workspace', await makeWorkspace()], env);
  expect(run.code).toBe(0);
  const { runId } = lastJsonLine(run.stdout);
  expect((await bucket.objects()).length).toBeGreaterThan(0);

  // Another machine's replay: the same bucket, and local directories of its own that hold nothing.
  const elsewhere = await privateDirectories();
  const query = ['--query', `WorkflowId = '${workflowId}'`];
  const replay = await waitFor(
    'the run in the replay listing',
    async () => {
      const result = await runCli(['replay', ...query], { ...env, ...elsewhere.env });
      return result.stdout.includes(workflowId) && result;
    },
    { timeoutMs: 120_000, intervalMs: 1000 },
  );
  expect(replay.stdout).toBe(`${workflowId} ${runId} ok\n1 run replayed: 1 ok, 0 FAILED\n`);
  expect(replay.code).toBe(0);
  expect(await filesUnder(elsewhere.root)).toEqual([]);

  // The claims in history name the bucket and key themselves: without the objects (deleted, as a lifecycle rule
  // would), the payload cannot be read, and the gate fails.
  for (const { key } of await bucket.objects())
    await bucket.s3.send(new DeleteObjectCommand({ Bucket: bucket.bucket, Key: key }));
  const deleted = await runCli(['replay', ...query], { ...env, ...elsewhere.env });
  expect(deleted.code).toBe(1);
  expect(deleted.stdout).toMatch(new RegExp(`^${workflowId} ${runId} FAILED: `));
}, 360_000);

it("gates a change to the user's own workflow (--workflows): its run and its history file replay on the code that made them, and fail on a change without a patch", async () => {
  const fixtures = path.join(__dirname, '..', 'fixtures', 'testing-kit');
  const [original, changed] = ['order-workflows.ts', 'order-workflows-changed.ts'].map((file) => path.join(fixtures, file));
  const support = defineAgent({ name: 'support', description: 'Answers customers.', model: 'openai:gpt-4o-mini' });
  const env = { ...server.providerEnv, TEMPORAL_NAMESPACE: replayGateNamespace };
  const order = `${Date.now()}`;
  const deskId = `order-desk-${order}`;
  server.enqueue(openaiReply({ content: `Order ${order} has shipped.` }));

  // The user's worker: their workflows module (an order desk that starts the support agent as a child) and agents.
  const environment = await connectToTestServer(replayGateNamespace);
  const connection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'replay-own-')), 'order-desk.json');
  try {
    const taskQueue = uniqueTaskQueue('replay-own');
    const worker = await createAgentWorker({
      connection,
      namespace: replayGateNamespace,
      taskQueue,
      agents: [support],
      env: server.providerEnv,
      workspaceRoot: os.tmpdir(),
      workflowBundle: await bundleWorkflowCode({ workflowsPath: original, logger: quietLogger }),
    });
    const workspace = await makeWorkspace();
    const answer = await worker.runUntil(
      environment.client.workflow.execute('orderDesk', { taskQueue, workflowId: deskId, args: [order, workspace] }),
    );
    expect(answer).toBe(`Order ${order} has shipped.`);
    const history = await environment.client.workflow.getHandle(deskId).fetchHistory();
    await writeFile(file, historyToJSON(history));
  } finally {
    await connection.close();
    await environment.teardown();
  }

  // The history file: it replays on the code that recorded it, and fails on the changed workflow.
  const unchangedFile = await runCli(['replay', '--workflows', original, '--file', file], env);
  expect(unchangedFile.stdout).toMatch(new RegExp(`^${deskId} \\S+ ok\n1 run replayed: 1 ok, 0 FAILED\n$`));
  expect(unchangedFile.code).toBe(0);
  const changedFile = await runCli(['replay', '--workflows', changed, '--file', file], env);
  expect(changedFile.stdout).toContain(`${deskId} `);
  expect(changedFile.stdout).toContain(' FAILED: event 5 (StartChildWorkflowExecutionInitiated): ');
  expect(changedFile.code).toBe(1);

  // The server, by default (no --query): the runs of every workflow the module exports, the order desk among them.
  const listed = (result: { stdout: string }) =>
    ((lastJsonLine(result.stdout).runs ?? []) as Array<{ workflowId: string; ok: boolean }>)
      .filter((run) => run.workflowId === deskId || run.workflowId === `desk-${order}`)
      .sort((a, b) => a.workflowId.localeCompare(b.workflowId));
  const changedServer = await waitFor(
    'the order desk in the default listing',
    async () => {
      const result = await runCli(['replay', '--workflows', changed, '--json'], env);
      return listed(result).length === 2 && result;
    },
    { timeoutMs: 120_000, intervalMs: 1000 },
  );
  expect(listed(changedServer)).toEqual([
    expect.objectContaining({ workflowId: `desk-${order}`, ok: true }),
    expect.objectContaining({ workflowId: deskId, ok: false }),
  ]);
  expect(changedServer.code).toBe(1);
  const unchangedServer = await runCli(['replay', '--workflows', original, '--json'], env);
  expect(listed(unchangedServer)).toEqual([
    expect.objectContaining({ workflowId: `desk-${order}`, ok: true }),
    expect.objectContaining({ workflowId: deskId, ok: true }),
  ]);
}, 360_000);

const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };
