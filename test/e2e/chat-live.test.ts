import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { collect, lastJsonLine, runCli, spawnCli } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { toolResultsSent } from '../support/wire-results';
import { fileExists, makeWorkspace } from '../support/workspace';

// `agent chat` as a person types into it (stdin piped, Ctrl-C as SIGINT), with the CLI's own worker:
// the approval question on the next line, and Ctrl-C interrupting a turn, then leaving.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

/** A chat in a child process, with what it printed so far. */
function startChat(workspace: string, extraArgs: string[] = []) {
  const env = { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('chat-live') };
  const child = spawnCli(['chat', '--workspace', workspace, ...extraArgs], env);
  const seen = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => (seen.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (seen.stderr += chunk.toString()));
  const finished = collect(child);
  const type = (line: string) => child.stdin!.write(`${line}\n`);
  const printed = (where: 'stdout' | 'stderr', text: string) =>
    waitFor(`the chat to print ${JSON.stringify(text)} on ${where}`, () => seen[where].includes(text));
  return { child, env, seen, finished, type, printed };
}

it('asks before each file write on the next line: y approves and the file is written, n denies and the model is told why', async () => {
  const workspace = await makeWorkspace();
  bed.server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'call_a', name: 'write_file', arguments: { path: 'a.txt', content: 'alpha' } },
        { id: 'call_b', name: 'write_file', arguments: { path: 'b.txt', content: 'beta' } },
      ],
    }),
    openaiReply({ content: 'Wrote a.txt; b.txt was not approved.' }),
  );
  const chat = startChat(workspace);
  chat.type('write two files');
  // The preview of what it would write comes first, then the question.
  await chat.printed('stderr', 'write_file "a.txt" (5 bytes, 1 line)\n  │ alpha');
  await chat.printed('stderr', 'approve write_file "a.txt" (5 bytes, 1 line)? [y/N]');
  // Nothing runs before the person answers.
  expect(await fileExists(path.join(workspace, 'a.txt'))).toBe(false);
  chat.type('y');
  await chat.printed('stderr', 'approve write_file "b.txt" (4 bytes, 1 line)? [y/N]');
  chat.type('n');
  await chat.printed('stdout', 'Wrote a.txt; b.txt was not approved.');
  chat.child.stdin!.end('/end\n');
  const result = await chat.finished;

  expect(result.code).toBe(0);
  expect(result.stderr).toContain('approved write_file "a.txt" (5 bytes, 1 line) (call call_a)');
  expect(result.stderr).toContain('denied write_file "b.txt" (4 bytes, 1 line) (call call_b)');
  expect(await readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('alpha');
  expect(await fileExists(path.join(workspace, 'b.txt'))).toBe(false);
  expect(toolResultsSent(bed.server.requests[1])).toEqual([
    { id: 'call_a', content: expect.stringContaining('a.txt') },
    { id: 'call_b', content: expect.stringContaining('denied: the person at the terminal said no') },
  ]);
});

it('--yes runs a chat without asking', async () => {
  const workspace = await makeWorkspace();
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_a', name: 'write_file', arguments: { path: 'a.txt', content: 'alpha' } }] }),
    openaiReply({ content: 'Done.' }),
  );
  const chat = startChat(workspace, ['--yes']);
  chat.type('write a file');
  await chat.printed('stdout', 'Done.');
  chat.child.stdin!.end('/end\n');
  const result = await chat.finished;
  expect(result.code).toBe(0);
  expect(result.stderr).not.toContain('[y/N]');
  expect(await readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('alpha');
});

it('Ctrl-C interrupts the turn and the chat goes on; a second Ctrl-C leaves, and the session is still alive', async () => {
  const workspace = await makeWorkspace();
  bed.server.enqueue({ hang: true }, openaiReply({ content: 'Still here.' }));
  const chat = startChat(workspace);
  await chat.printed('stderr', 'type a message');
  const workflowId = /session (\S+) started/.exec(chat.seen.stderr)![1];
  chat.type('think forever');
  await waitFor('the model request to arrive', () => bed.server.requests.length === 1);

  chat.child.kill('SIGINT');
  await chat.printed('stderr', '(turn ended with status interrupted)').catch((error) => {
    throw new Error(`${error.message}\n${chat.seen.stderr}`);
  });
  expect(chat.seen.stderr).toContain('interrupting the turn');
  await waitFor('the model request to be aborted', () => bed.server.requests[0].abandonedAt !== undefined);
  chat.type('are you there?');
  await chat.printed('stdout', 'Still here.').catch((error) => {
    throw new Error(`${error.message}\n${chat.seen.stderr}`);
  });

  chat.child.kill('SIGINT');
  const result = await chat.finished;
  expect(result.code).toBe(130);
  expect(result.stderr).toContain(`left the chat; session ${workflowId} is still alive`);

  // Another terminal carries on with the same session. The chat's worker has just stopped but is still listed as
  // polling: send finds no worker answering and runs one itself.
  bed.server.enqueue(openaiReply({ content: 'Yes, three messages.' }));
  const send = await runCli(['send', workflowId, 'still alive?', '--json'], chat.env);
  expect(send.code).toBe(0);
  expect(lastJsonLine(send.stdout)).toMatchObject({ status: 'completed', answer: 'Yes, three messages.' });
  const sent = bed.server.requests[2].body.messages as Array<{ role: string; content: string }>;
  expect(sent.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
    'think forever',
    'are you there?',
    'still alive?',
  ]);
  expect((await runCli(['end', workflowId], chat.env)).code).toBe(0);
});
