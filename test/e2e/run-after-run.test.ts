import { collect, spawnCli, type CliResult } from '../support/cli';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

// TEMPORAL_ADDRESS is set (the tests' dev server) and no worker stands on the task queue: each command runs the
// worker it needs in its own process, which exits with it. The server still lists that worker as a poller for a
// while, so a command that came right after used to count on it, start no worker, and wait forever on a run no
// worker would ever take. `run` and `chat` now prove a worker answers (a status query within 5 s) like `send` and
// `show`, and start their own when none does.

let server: FakeModelServer;
beforeAll(async () => {
  server = await FakeModelServer.start();
});
afterAll(() => server?.close());

/** The CLI's result, or a failure saying it hung: killed after `limitMs` (a run takes a few seconds here). */
async function cliWithin(limitMs: number, args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<CliResult> {
  const child = spawnCli(args, env, { stdin: stdin === undefined ? 'ignore' : 'pipe' });
  if (stdin !== undefined) child.stdin!.end(stdin);
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const result = await collect(child).finally(() => clearTimeout(timer));
  if (result.code === null)
    throw new Error(`agent ${args[0]} still had not finished after ${limitMs} ms; stderr:\n${result.stderr}`);
  return result;
}

it('finishes a second agent run started right after a first, whose worker has just exited', async () => {
  const env = { ...server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('run-after-run') };
  const workspace = await makeWorkspace();
  server.enqueue(openaiReply({ content: 'first answer' }), openaiReply({ content: 'second answer' }));

  const first = await cliWithin(60_000, ['run', 'first question', '--workspace', workspace], env);
  expect(first.stderr).toContain('no worker is polling task queue');
  expect(first.code).toBe(0);
  expect(first.stdout).toBe('first answer\n');

  const second = await cliWithin(60_000, ['run', 'second question', '--workspace', workspace], env);
  expect(second.code).toBe(0);
  expect(second.stdout).toBe('second answer\n');
  expect(second.stderr).toContain('no worker answered within 5s: running one in this process');
});

it('answers an agent chat started right after a run, whose worker has just exited', async () => {
  const env = { ...server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('chat-after-run') };
  const workspace = await makeWorkspace();
  server.enqueue(openaiReply({ content: 'the run answers' }), openaiReply({ content: 'the chat answers' }));

  const run = await cliWithin(60_000, ['run', 'a question', '--workspace', workspace], env);
  expect(run.code).toBe(0);

  const chat = await cliWithin(60_000, ['chat', '--workspace', workspace], env, 'hello\n/end\n');
  expect(chat.code).toBe(0);
  expect(chat.stdout).toBe('the chat answers\n');
  expect(chat.stderr).toContain('no worker answered within 5s: running one in this process');
  expect(chat.stderr).toMatch(/session agent-\S+ ended: 1 message\(s\)/);
});
