import { mkdir, readdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { maxWriteFileBytes } from '../../core/limits';
import { lastJsonLine, runCliProcess } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';
import { useTestBed } from '../support/test-bed';

const bed = useTestBed();

it('refuses every attempt to read or write outside the workspace and reports each to the model', async () => {
  const parent = await makeWorkspace({ 'secret.txt': 'top secret' });
  const workspace = path.join(parent, 'workspace');
  await mkdir(workspace);
  await symlink(path.join(parent, 'secret.txt'), path.join(workspace, 'link-out'));
  await symlink(path.join(parent, 'planted.txt'), path.join(workspace, 'dangling-out'));
  const attempts = [
    { name: 'read_file', arguments: { path: '../secret.txt' } },
    { name: 'read_file', arguments: { path: path.join(parent, 'secret.txt') } },
    { name: 'read_file', arguments: { path: 'link-out' } },
    { name: 'read_file', arguments: { path: 'ok.txt\u0000../../secret.txt' } },
    { name: 'write_file', arguments: { path: '../planted.txt', content: 'x' } },
    { name: 'write_file', arguments: { path: 'dangling-out', content: 'x' } },
    { name: 'write_file', arguments: { path: 'huge.txt', content: 'x'.repeat(maxWriteFileBytes + 1) } },
    { name: 'list_directory', arguments: { path: '..' } },
    { name: 'search_files', arguments: { pattern: 'secret', path: '..' } },
  ];
  bed.server.enqueue(
    openaiReply({ toolCalls: attempts.map((attempt, index) => ({ id: `s${index}`, ...attempt })) }),
    openaiReply({ content: 'nothing escaped' }),
  );
  const taskQueue = uniqueTaskQueue('security');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const { result } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, {
      prompt: 'try to escape',
      model: 'openai:gpt-4o-mini',
      tools: ['read_file', 'write_file', 'list_directory', 'search_files'],
      workspace,
    }),
  );

  expect(result.status).toBe('completed');
  const toolMessages = bed.server.requests[1].body.messages.filter((message: { role: string }) => message.role === 'tool');
  expect(toolMessages).toHaveLength(attempts.length);
  for (const message of toolMessages) {
    expect(message.content).toMatch(/^Error: /);
    expect(message.content).not.toContain('top secret');
  }
  expect((await readdir(parent)).sort()).toEqual(['secret.txt', 'workspace']);
  expect((await readdir(workspace)).sort()).toEqual(['dangling-out', 'link-out']);
});

it('keeps API keys out of inputs, results, history and CLI output', async () => {
  const workspace = await makeWorkspace({ 'a.txt': 'a' });
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'k1', name: 'read_file', arguments: { path: 'a.txt' } }] }),
    openaiReply({ content: 'done' }),
  );
  // In a process of its own: the key is in nothing the process printed, its worker's lines included.
  const run = await runCliProcess(['run', 'read a.txt', '--workspace', workspace, '--json'], {
    ...bed.server.providerEnv,
    AGENT_TASK_QUEUE: uniqueTaskQueue('secrets'),
  });
  expect(run.code).toBe(0);
  const history = JSON.stringify(await fetchEvents(bed.environment.client, String(lastJsonLine(run.stdout).workflowId)));
  const keys = [bed.server.providerEnv.OPENAI_API_KEY!, bed.server.providerEnv.ANTHROPIC_API_KEY!];
  for (const key of keys) {
    expect(run.stdout).not.toContain(key);
    expect(run.stderr).not.toContain(key);
    expect(history).not.toContain(key);
  }
  // The key did reach the provider: it travels from the worker's bed.environment, not through Temporal.
  expect(bed.server.requests[0].headers.authorization).toBe(`Bearer ${keys[0]}`);
});

it('has no API key in any committed replay history', async () => {
  const directory = path.join(__dirname, '..', 'replay', 'histories');
  const keys = [bed.server.providerEnv.OPENAI_API_KEY!, bed.server.providerEnv.ANTHROPIC_API_KEY!];
  const files = (await readdir(directory)).filter((file) => file.endsWith('.json'));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const text = await readFile(path.join(directory, file), 'utf8');
    for (const key of keys) expect(text).not.toContain(key);
  }
});

// A write well inside the bound still works, so the refusals above are about where and how much, not about writing.
it('still writes inside the workspace', async () => {
  const workspace = await makeWorkspace();
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'sub/ok.txt', content: 'fine' } }] }),
    openaiReply({ content: 'ok' }),
  );
  const taskQueue = uniqueTaskQueue('security-write');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  await worker.runUntil(
    runAgent(bed.environment, taskQueue, { prompt: 'write', model: 'openai:gpt-4o-mini', tools: ['write_file'], workspace }),
  );
  expect(await readFile(path.join(workspace, 'sub', 'ok.txt'), 'utf8')).toBe('fine');
});
