import { collect, lastJsonLine, runCli, spawnCli } from '../support/cli';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

let server: FakeModelServer;
beforeAll(async () => {
  server = await FakeModelServer.start();
});
afterAll(() => server?.close());

it('chats line by line: each line is answered on stdout, and /end ends the session', async () => {
  server.enqueue(openaiReply({ content: 'hello, human' }), openaiReply({ content: 'two messages so far' }));
  const workspace = await makeWorkspace();
  const child = spawnCli(['chat', '--workspace', workspace], {
    ...server.providerEnv,
    AGENT_TASK_QUEUE: uniqueTaskQueue('chat'),
  });
  const finished = collect(child);
  child.stdin!.write('hi there\n');
  child.stdin!.write('how many messages?\n');
  child.stdin!.end('/end\n');
  const chat = await finished;

  expect(chat.code).toBe(0);
  expect(chat.stdout).toBe('hello, human\ntwo messages so far\n');
  expect(chat.stderr).toMatch(/session agent-\S+ started/);
  expect(chat.stderr).toMatch(/session agent-\S+ ended: 2 message\(s\), 2 model call\(s\), 200 input \/ 40 output tokens/);
  expect(server.requests[1].body.messages.map((message: { content: string }) => message.content)).toEqual([
    'hi there',
    'hello, human',
    'how many messages?',
  ]);
});

it('sends messages to a session by id and ends it', async () => {
  server.reset();
  server.enqueue(openaiReply({ content: 'first reply' }), openaiReply({ content: 'second reply' }));
  const env = { ...server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('send') };
  const workspace = await makeWorkspace();
  const id = `send-${Date.now()}`;
  // A chat keeps the session (and a worker) alive while `send` and `end` talk to it from other processes.
  const start = spawnCli(['chat', '--workspace', workspace, '--id', id], env);
  const chat = collect(start);
  await waitFor(async () => (await runCli(['send', id, 'first'], env)).stdout === 'first reply\n');
  const second = await runCli(['send', id, 'second', '--json'], env);
  expect(second.code).toBe(0);
  expect(lastJsonLine(second.stdout)).toMatchObject({
    workflowId: id,
    answer: 'second reply',
    status: 'completed',
    iterations: 1,
  });
  const empty = await runCli(['send', id, '   '], env);
  expect(empty.code).toBe(1);
  expect(empty.stderr).toContain('message not accepted: message must not be empty');
  const end = await runCli(['end', id, '--json'], env);
  expect(end.code).toBe(0);
  expect(lastJsonLine(end.stdout)).toMatchObject({ status: 'ended', turns: 2, answer: 'second reply' });
  start.stdin!.end();
  await chat;
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
