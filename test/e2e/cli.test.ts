import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { collect, lastJsonLine, runCli, spawnCli } from '../support/cli';
import { FakeModelServer, openaiError, openaiReply } from '../support/fake-model-server';
import { freePort } from '../../cli/dev-server/free-port';
import { connectToTestServer, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

let server: FakeModelServer;
beforeAll(async () => {
  server = await FakeModelServer.start();
});
beforeEach(() => server.reset());
afterAll(() => server?.close());

const cliEnv = () => ({ ...server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('cli') });

it('runs an agent, prints progress on stderr and one JSON line on stdout; show and history read the run back', async () => {
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha!' });
  server.enqueue(
    openaiReply({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
    openaiReply({ content: 'The file says alpha!' }),
  );
  const env = cliEnv();
  const run = await runCli(
    ['run', 'What does alpha.txt say?', '--workspace', workspace, '--json', '--id', `cli-${Date.now()}`],
    env,
  );

  expect(run.code).toBe(0);
  const result = lastJsonLine(run.stdout);
  expect(result).toMatchObject({
    status: 'completed',
    answer: 'The file says alpha!',
    iterations: 2,
    usage: { inputTokens: 200, outputTokens: 40 },
    workflowId: expect.stringMatching(/^cli-/),
    runId: expect.any(String),
  });
  expect(run.stderr).toContain('iteration 1 · openai:gpt-4o-mini asked for read_file');
  expect(run.stderr).toContain('✓ read_file alpha.txt');
  expect(run.stderr).toMatch(/Web UI: http:\/\/localhost:8233\/namespaces\/default\/workflows\/cli-/);

  const show = await runCli(['show', String(result.workflowId)], env);
  expect(show.stderr).toContain('COMPLETED · iteration 2 · 200 input / 40 output tokens');
  expect(show.code).toBe(0);
  expect(show.stdout).toContain('[user]\nWhat does alpha.txt say?');
  expect(show.stdout).toContain('[tool read_file c1]\nalpha!');

  const file = path.join(os.tmpdir(), `history-${Date.now()}.json`);
  const history = await runCli(['history', String(result.workflowId), '--out', file], env);
  expect(history.code).toBe(0);
  const events = historyFromJSON(JSON.parse(await readFile(file, 'utf8'))).events ?? [];
  expect(events.length).toBeGreaterThan(10);
});

it('prints each model call once, with its iteration, tokens and cost, and each tool call once, in order, from the stream', async () => {
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha!' });
  server.enqueue(
    openaiReply({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
    openaiReply({ toolCalls: [{ id: 'c2', name: 'read_file', arguments: { path: 'missing.txt' } }] }),
    // An instant answer: the run can end before the follower polls again, and the streamTail query brings the rest.
    openaiReply({ content: 'alpha!, and there is no missing.txt' }),
  );
  const run = await runCli(['run', 'read alpha.txt and missing.txt', '--workspace', workspace], cliEnv());
  expect(run.code).toBe(0);
  expect(run.stdout).toBe('alpha!, and there is no missing.txt\n');
  const progress = run.stderr.split('\n').filter((line) => /^(iteration \d| {2}[✓✗] |\d+ iteration\(s\))/.test(line));
  expect(progress).toEqual([
    'iteration 1 · openai:gpt-4o-mini asked for read_file (100 in / 20 out tokens, $0.000027)',
    '  ✓ read_file alpha.txt',
    'iteration 2 · openai:gpt-4o-mini asked for read_file (100 in / 20 out tokens, $0.000027)',
    expect.stringMatching(/^ {2}✗ read_file missing\.txt: .*missing\.txt/),
    'iteration 3 · openai:gpt-4o-mini answered (100 in / 20 out tokens, $0.000027)',
    '3 iteration(s), 300 input / 60 output tokens, $0.000081',
  ]);
});

it('prints the answer alone on stdout without --json', async () => {
  server.enqueue(openaiReply({ content: 'just the answer' }));
  const run = await runCli(['run', 'say it', '--workspace', await makeWorkspace()], cliEnv());
  expect(run.code).toBe(0);
  expect(run.stdout).toBe('just the answer\n');
});

it('exits non-zero with the provider message on stderr when the run fails', async () => {
  server.enqueue(openaiError(401, 'Incorrect API key provided'));
  const run = await runCli(['run', 'hello', '--workspace', await makeWorkspace(), '--json'], cliEnv());
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('run failed: openai rejected the request (HTTP 401): Incorrect API key provided');
  expect(lastJsonLine(run.stdout)).toMatchObject({
    status: 'failed',
    error: expect.stringContaining('Incorrect API key provided'),
  });
});

it('exits 3 when the run ends at max iterations', async () => {
  // The closing reflection keeps the tools defined but sets tool_choice none, so the model answers in text.
  server.respondWith((request) =>
    request.body.tool_choice === 'none'
      ? openaiReply({ content: 'summary' })
      : openaiReply({ toolCalls: [{ id: `c${Date.now()}`, name: 'list_directory', arguments: {} }] }),
  );
  const run = await runCli(
    ['run', 'loop forever', '--workspace', await makeWorkspace(), '--max-iterations', '2', '--json'],
    cliEnv(),
  );
  expect(run.code).toBe(3);
  expect(lastJsonLine(run.stdout)).toMatchObject({ status: 'max_iterations', answer: 'summary', iterations: 2 });
});

it('stops following on Ctrl-C with exit code 130 and leaves the run going', async () => {
  server.enqueue({ hang: true });
  const env = cliEnv();
  const id = `cli-interrupt-${Date.now()}`;
  const child = spawnCli(['run', 'take your time', '--workspace', await makeWorkspace(), '--id', id], env, { stdin: 'ignore' });
  const finished = collect(child);
  while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  child.kill('SIGINT');
  const run = await finished;
  expect(run.code).toBe(130);
  expect(run.stderr).toContain(`stopped following ${id}; the run goes on`);
  // And nothing after the hint. (The uncaught stack trace a retried poll once printed here needs a server that stops
  // under the poll, the embedded one: test/e2e/embedded-server.test.ts.)
  expect(run.stderr).not.toMatch(/Channel has been shut down|\n\s+at /);
  expect(run.stdout).toBe('');
  // The run is still open on the server, waiting for a worker to take the call up again.
  const environment = await connectToTestServer();
  const handle = environment.client.workflow.getHandle(id);
  expect((await handle.describe()).status.name).toBe('RUNNING');
  await handle.terminate('test cleanup');
  await environment.teardown();
});

it('names an address where no server answers and the two ways out, without waiting for the client deadline', async () => {
  const address = `127.0.0.1:${await freePort()}`;
  const run = await runCli(['run', 'hello', '--workspace', await makeWorkspace()], { ...cliEnv(), TEMPORAL_ADDRESS: address });
  expect(run.code).toBe(1);
  expect(run.stderr).toBe(
    `error: no Temporal server answers at ${address} (TEMPORAL_ADDRESS): the connection was refused. ` +
      'Start one there (`npm run agent -- dev` keeps a local one on localhost:7233, with its Web UI), ' +
      'or unset TEMPORAL_ADDRESS and this command starts its own embedded dev server\n',
  );
});

it('refuses a run whose provider key is missing from the worker it runs itself, naming the variable, and starts nothing', async () => {
  const id = `cli-no-key-${Date.now()}`;
  // No OPENAI_API_KEY nor OPENAI_BASE_URL, and a task queue no worker polls: the worker would be this command's.
  const run = await runCli(['run', 'hello', '--workspace', await makeWorkspace(), '--id', id], {
    AGENT_TASK_QUEUE: uniqueTaskQueue('cli-no-key'),
  });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(
    'error: agent "default" uses openai:gpt-4o-mini, and OPENAI_API_KEY is not set in the worker environment',
  );
  expect(server.requests).toHaveLength(0);
  const environment = await connectToTestServer();
  try {
    await expect(environment.client.workflow.getHandle(id).describe()).rejects.toThrow(/not found/i);
  } finally {
    await environment.teardown();
  }
});
