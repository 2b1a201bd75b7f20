import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EventType } from '@ag-ui/core';
import { openaiReply } from '../support/fake-model-server';
import { cliCommandLine, cliEnvironment, runCli, spawnCli } from '../support/cli';
import { Terminal } from '../support/terminal';
import { makeWorkspace } from '../support/workspace';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { readAgUiRun } from './ag-ui-sequence';
import { chat, newChatId, textOf, userMessage } from './chat-client';

// `agent serve` as a person starts it: a process of its own, with the CLI's connection settings and its own worker.

const bed = useTestBed();

it('serves /api/chat: a message sent through DefaultChatTransport is answered by the agent it was started with', async () => {
  bed.server.enqueue({ ...openaiReply({ content: 'Served by agent serve.' }), stream: { intervalMs: 20 } });
  const child = spawnCli(
    [
      'serve',
      '--port',
      '0',
      '--model',
      'openai:gpt-4o-mini',
      '--workspace',
      bed.workspace,
      '--static',
      bed.workspace,
      '--max-body-bytes',
      '8192',
    ],
    { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('serve') },
    { stdin: 'ignore' },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const api = await waitFor('agent serve listening', () => /serving (http:\/\/127\.0\.0\.1:\d+\/api\/chat)/.exec(stderr)?.[1], {
      timeoutMs: 90_000,
    });
    const id = newChatId();
    const { message, invalid } = await chat(api, 'anyone', id, [userMessage('hello from the page')]);
    expect(invalid).toEqual([]);
    expect(textOf(message)).toBe('Served by agent serve.');
    expect(JSON.stringify(bed.server.requests[0].body.messages)).toContain('hello from the page');
    // Unknown routes and methods: clear JSON errors.
    const wrong = await fetch(api, { method: 'GET' });
    expect(wrong.status).toBe(405);
    expect(await wrong.json()).toEqual({ error: 'POST only here' });
    // --max-body-bytes: a message (its files as base64 included) over the limit is 413, and never reaches the model.
    const large = await fetch(api, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: newChatId(), messages: [userMessage('x'.repeat(9000))] }),
    });
    expect(large.status).toBe(413);
    expect(bed.server.requests).toHaveLength(1);
  } finally {
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  expect(bed.server.refusals).toEqual([]);
});

it('serves AG-UI at /api/ag-ui: a RunAgentInput is answered with a valid RUN_STARTED ... RUN_FINISHED stream, for its principal', async () => {
  bed.server.enqueue({ ...openaiReply({ content: 'An AG-UI answer from agent serve.' }), stream: { intervalMs: 20 } });
  const child = spawnCli(
    [
      'serve',
      '--port',
      '0',
      '--model',
      'openai:gpt-4o-mini',
      '--workspace',
      bed.workspace,
      '--static',
      bed.workspace,
      '--principal-header',
      'X-User',
    ],
    { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('serve-ag-ui') },
    { stdin: 'ignore' },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const agUi = await waitFor(
      'agent serve listening',
      () => /AG-UI at (http:\/\/127\.0\.0\.1:\d+\/api\/ag-ui)/.exec(stderr)?.[1],
      {
        timeoutMs: 90_000,
      },
    );
    const threadId = newChatId();
    const input = {
      threadId,
      runId: 'run-1',
      state: {},
      tools: [],
      context: [],
      forwardedProps: {},
      messages: [{ id: 'u1', role: 'user', content: 'hello from an AG-UI client' }],
    };
    const post = (headers: Record<string, string>) =>
      fetch(agUi, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(input) });
    // The same authorize as /api/chat: no principal header, no run (and no model call).
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: 'not signed in' });
    expect(bed.server.requests).toHaveLength(0);

    const events = await readAgUiRun(await post({ 'x-user': 'alice' }));
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId, runId: 'run-1' });
    const text = events
      .flatMap((event) => (event.type === EventType.TEXT_MESSAGE_CONTENT ? [(event as unknown as { delta: string }).delta] : []))
      .join('');
    expect(text).toBe('An AG-UI answer from agent serve.');
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      result: { answer: 'An AG-UI answer from agent serve.' },
    });
    expect(JSON.stringify(bed.server.requests[0].body.messages)).toContain('hello from an AG-UI client');

    // One set of sessions behind both endpoints: the thread is the chat of the same id, its owner's only.
    const api = agUi.replace(/\/api\/ag-ui$/, '/api/chat');
    const asOwner = await fetch(`${api}/${threadId}`, { headers: { 'x-user': 'alice' } });
    expect(asOwner.status).toBe(200);
    expect(JSON.stringify(await asOwner.json())).toContain('An AG-UI answer from agent serve.');
    expect((await fetch(`${api}/${threadId}`, { headers: { 'x-user': 'bob' } })).status).toBe(404);
    expect((await post({ 'x-user': 'bob' })).status).toBe(404);

    // The agent over A2A too (docs/a2a.md): its card at the root, whose security says how a caller is signed in.
    const card = (await (await fetch(agUi.replace(/\/api\/ag-ui$/, '/.well-known/agent-card.json'))).json()) as {
      name: string;
      supportedInterfaces: Array<{ url: string }>;
      securitySchemes: Record<string, unknown>;
    };
    expect(card.name).toBe('default');
    expect(card.supportedInterfaces[0].url).toBe(agUi.replace(/\/api\/ag-ui$/, '/a2a/default'));
    expect(card.securitySchemes).toEqual({
      signedInByProxy: { apiKeySecurityScheme: expect.objectContaining({ location: 'header', name: 'X-User' }) },
    });
  } finally {
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  expect(bed.server.refusals).toEqual([]);
});

describe('what agent serve refuses before it starts (exit 2, nothing started)', () => {
  let terminal: Terminal | undefined;
  afterEach(() => terminal?.close());

  it('refuses to listen beyond loopback with no --principal-header, saying why, in a real terminal', async () => {
    const args = ['serve', '--host', '0.0.0.0', '--port', '0', '--model', 'openai:gpt-4o-mini', '--workspace', bed.workspace];
    const env = cliEnvironment({ ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('serve-open') });
    // Through a shell that prints the exit status and stays: a program that stops at once can take its pane (and the
    // terminal's server) with it before tmux is told to keep dead panes, and the screen is then lost.
    const shell = ['sh', '-c', '"$0" "$@"; echo "exit status $?"; exec sleep 600', ...cliCommandLine(args)];
    terminal = await Terminal.start(shell, env);
    const screen = await waitFor(
      'the refusal on the screen',
      async () => {
        const shown = await terminal!.screen();
        return /exit status \d+/.test(shown) && shown;
      },
      { timeoutMs: 60_000 },
    );
    expect(screen).toContain('error: serve would listen on 0.0.0.0 with every request taken as the one user "local"');
    expect(screen).toContain('or pass --allow-unauthenticated if something else guards the address');
    expect(screen).toMatch(/^exit status 2$/m);
    expect(screen).not.toContain('serving');
  });

  it('listens beyond loopback when a proxy that proves itself names the principal, or --allow-unauthenticated says so', async () => {
    const refused = await runCli(['serve', '--host', '::', '--port', '0', '--workspace', bed.workspace]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error: serve would listen on :: with every request');
    for (const flag of [['--principal-header', 'X-User', '--trusted-proxy', '127.0.0.1'], ['--allow-unauthenticated']]) {
      const child = spawnCli(
        ['serve', '--host', '0.0.0.0', '--port', '0', ...flag, '--model', 'openai:gpt-4o-mini', '--workspace', bed.workspace],
        { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('serve-open') },
        { stdin: 'ignore' },
      );
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      try {
        await waitFor(`agent serve ${flag[0]} listening`, () => /serving http:\/\/0\.0\.0\.0:\d+\/api\/chat/.test(stderr), {
          timeoutMs: 90_000,
        });
      } finally {
        child.kill('SIGINT');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
  });

  it("refuses a workspace outside the workspace root, which every chat's first message would have failed on", async () => {
    const outside = await runCli(['serve', '--port', '0', '--model', 'openai:gpt-4o-mini', '--workspace', '/'], {
      ...bed.server.providerEnv,
      AGENT_TASK_QUEUE: uniqueTaskQueue('serve-root'),
    });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('error: workspace "/" is outside the workspace root');
    expect(outside.stderr).not.toContain('serving');
  });
});

it('answers through the real ai client when started right after another command, whose worker has just exited; the static directory keeps its files to itself', async () => {
  const env = { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('serve-after-run') };
  // The command before: its own worker, listed by the server as polling for minutes after it exits.
  bed.server.enqueue(openaiReply({ content: 'the run answers' }));
  const run = await runCli(['run', 'a question', '--model', 'openai:gpt-4o-mini', '--workspace', bed.workspace], env);
  expect(run.code).toBe(0);

  // A page, a symlink inside it to its own index, and symlinks out of it to a secret beside it.
  const outside = await makeWorkspace({ 'secret.txt': 'SECRET-OUTSIDE-THE-PAGE' });
  const page = await makeWorkspace({ 'index.html': '<p>the chat page</p>' });
  await mkdir(path.join(page, 'assets'));
  await writeFile(path.join(page, 'assets', 'app.js'), 'console.log(1)');
  await symlink(path.join(outside, 'secret.txt'), path.join(page, 'secret.txt'));
  await symlink(outside, path.join(page, 'leak'));
  await symlink('index.html', path.join(page, 'home.html'));

  bed.server.enqueue({ ...openaiReply({ content: 'Served after a run.' }), stream: { intervalMs: 20 } });
  const child = spawnCli(
    ['serve', '--port', '0', '--model', 'openai:gpt-4o-mini', '--workspace', bed.workspace, '--static', page],
    env,
    {
      stdin: 'ignore',
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const api = await waitFor('agent serve listening', () => /serving (http:\/\/127\.0\.0\.1:\d+\/api\/chat)/.exec(stderr)?.[1], {
      timeoutMs: 90_000,
    });
    // Before: no worker served the chat, and the POST got no response headers for minutes. A bound far above the
    // 5 s proof of life, only so that a hang fails here instead of at jest's timeout.
    let bound: NodeJS.Timeout | undefined;
    const answer = await Promise.race([
      chat(api, 'anyone', newChatId(), [userMessage('hello after a run')]),
      new Promise<never>((_resolve, reject) => {
        bound = setTimeout(() => reject(new Error(`no answer within 90 s; agent serve said:\n${stderr}`)), 90_000);
      }),
    ]).finally(() => clearTimeout(bound));
    expect(answer.invalid).toEqual([]);
    expect(textOf(answer.message)).toBe('Served after a run.');
    expect(stderr).toContain('no worker answered within 5s: running one in this process');
    expect(bed.server.requests).toHaveLength(2);

    const base = api.replace(/\/api\/chat$/, '');
    const get = async (route: string) => {
      const response = await fetch(`${base}${route}`);
      return { status: response.status, body: await response.text() };
    };
    expect(await get('/')).toEqual({ status: 200, body: '<p>the chat page</p>' });
    expect(await get('/home.html')).toEqual({ status: 200, body: '<p>the chat page</p>' });
    expect(await get('/assets/app.js')).toEqual({ status: 200, body: 'console.log(1)' });
    for (const route of ['/secret.txt', '/leak/secret.txt', '/leak/', '/%2e%2e/secret.txt']) {
      const refused = await get(route);
      expect(`${route}: ${refused.body}`).not.toContain('SECRET-OUTSIDE-THE-PAGE');
    }
    expect((await get('/secret.txt')).status).toBe(404);
    expect((await get('/leak/secret.txt')).status).toBe(404);
  } finally {
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  expect(bed.server.refusals).toEqual([]);
});
