import { spawn } from 'node:child_process';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openaiReply } from '../support/fake-model-server';
import {
  emptyDirectory,
  npmOf,
  packThisCheckout,
  removeMadeDirectories,
  run,
  shellEnvironment,
  succeeded,
} from '../support/packed-install';
import { uniqueTaskQueue } from '../support/temporal';
import { cachedTestServerPath } from '../support/test-server/find-test-server';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { chat, newChatId, textOf, userMessage } from '../web/chat-client';
import { freePort } from '../../cli/dev-server/free-port';

// README's quick start, done as a new user does it, from a packed copy of this checkout (what the registry would
// serve): install durable-agent into an empty directory, `npx durable-agent init`, install the new project with npm 10
// or 11 (npmMajors), run its own tests, its worker and client scripts, then `npx durable-agent run` and `npx
// durable-agent serve` against the fake model server, the chat answered through the `ai` package's own client. No
// repository files at run time: everything runs from the installed package's compiled JavaScript.

const bed = useTestBed();
jest.setTimeout(1_800_000);

/**
 * The npm versions a user has: by default the one that ships with the Node.js running the tests (Node 22 ships npm 10,
 * Node 24 npm 11); CI runs this file once, on Node 22 beside the suite (a few minutes: a pack and two installs).
 * INSTALL_TEST_NPM=10,11 runs both here.
 */
const npmMajors = (process.env.INSTALL_TEST_NPM ?? (Number(process.versions.node.split('.')[0]) >= 24 ? '11' : '10'))
  .split(',')
  .map(Number);

let tarball: string;
let initFrom: string;

beforeAll(async () => {
  tarball = await packThisCheckout();
  // The package installed into an empty directory: its `durable-agent` command makes the projects below.
  initFrom = await emptyDirectory('app');
  succeeded('npm install durable-agent', await run('npm', ['install', '--no-audit', '--no-fund', tarball], initFrom));
});
afterAll(() => removeMadeDirectories());

describe.each(npmMajors)('with npm %i', (npmMajor) => {
  const npm = npmOf(npmMajor);
  let project: string;

  it('npx durable-agent init makes a project whose install has one copy of each Temporal package and whose tests pass', async () => {
    const init = await run('npx', ['--no-install', 'durable-agent', 'init', `my-agents-npm${npmMajor}`], initFrom);
    expect({ code: init.code, stderr: init.stderr }).toMatchObject({ code: 0, stderr: expect.stringContaining('npm test') });
    project = path.join(initFrom, `my-agents-npm${npmMajor}`);

    // Installs the packed copy in place of the registry's durable-agent (which the project's package.json names).
    succeeded(`npm ${npmMajor} install`, await npm(['install', '--no-audit', '--no-fund', tarball], project));
    const copies = await run('npm', ['ls', '--all', '--parseable', '@temporalio/proto', '@temporalio/common'], project);
    expect(
      copies.stdout
        .split('\n')
        .filter((line) => line.includes('node_modules'))
        .sort(),
    ).toEqual([
      path.join(project, 'node_modules', '@temporalio', 'common'),
      path.join(project, 'node_modules', '@temporalio', 'proto'),
    ]);

    // A Temporal package the app installs itself keeps the overrides valid (they are `$` references): no EOVERRIDE.
    succeeded(
      `npm ${npmMajor} install @temporalio/client`,
      await npm(['install', '--no-audit', '--no-fund', '@temporalio/client'], project),
    );

    expect(await run('npm', ['run', '-s', 'typecheck'], project)).toMatchObject({ code: 0, stdout: '' });
    // The SDK would download the test server from Temporal's site, which this machine cannot reach: the installed
    // command caches one from Maven Central, and the project's tests find it there with no setting of their own.
    const setup = await run('npx', ['--no-install', 'durable-agent', 'setup-test-server'], project);
    expect({ code: setup.code, stdout: setup.stdout }).toEqual({ code: 0, stdout: `${cachedTestServerPath()}\n` });
    const test = await run('npm', ['test', '--', '--ci', '--verbose'], project, { TEMPORAL_TEST_SERVER_PATH: undefined });
    // On a failure the project's own jest output is in the diff: what failed in there is the story.
    expect({
      code: test.code,
      summary: /^Tests: .*$/m.exec(test.stderr)?.[0],
      ...(test.code !== 0 && { output: test.stderr.slice(-4000) }),
    }).toEqual({
      code: 0,
      summary: 'Tests:       2 passed, 2 total',
    });
    expect(test.stderr).toContain('✓ a refund waits for a person, runs once approved, and the model is shown its result');
    expect(test.stderr).toContain('✓ the recorded runs replay against this code');
  });

  /** The project's agents, on the tests' dev server, with the fake model server as OpenAI. */
  const agentEnvironment = () => ({
    ...bed.server.providerEnv,
    AGENT_DEFINITIONS: 'agents.ts',
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    AGENT_TASK_QUEUE: uniqueTaskQueue(`installed-npm${npmMajor}`),
  });

  it('npx durable-agent run runs the project agent from agents.ts, compiled JavaScript and no tsx of its own', async () => {
    const answer = `Order 7 has shipped (npm ${npmMajor}).`;
    bed.server.respondWith(() => openaiReply({ content: answer }));

    const result = await run(
      'npx',
      ['--no-install', 'durable-agent', 'run', '--agent', 'support', 'Where is order 7?'],
      project,
      agentEnvironment(),
    );

    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: expect.stringContaining(answer) });
    // The model was asked as the project's agent: its instructions, its one tool, the person's words.
    const [request] = bed.server.requests;
    expect(request.body.messages[0].content).toContain('You are support.');
    expect(request.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['refund_order']);
    expect(request.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Where is order 7?' });
    // The command is the package's compiled CLI.
    expect(await readFile(path.join(project, 'node_modules', '.bin', 'durable-agent'), 'utf8')).toMatch(
      /^#!\/usr\/bin\/env node\n/,
    );
  });

  it("without tsx, agents.ts loads by Node's own type stripping (Node 22.18+), or the error says what to do", async () => {
    // The project's tsx set aside, as in a project that never installed it.
    const tsx = path.join(project, 'node_modules', 'tsx');
    await rename(tsx, `${tsx}-aside`);
    try {
      const listed = await run('npx', ['--no-install', 'durable-agent', 'agents'], project, { AGENT_DEFINITIONS: 'agents.ts' });

      if ((process.features as { typescript?: unknown }).typescript)
        expect({ code: listed.code, stdout: listed.stdout }).toEqual({ code: 0, stdout: expect.stringMatching(/^support /m) });
      else
        expect({ code: listed.code, stderr: listed.stderr }).toEqual({
          code: 1,
          stderr: expect.stringContaining(
            `is TypeScript, and Node ${process.version} cannot load it by itself: install tsx in your project (npm install --save-dev tsx), or use Node 22.18 or later`,
          ),
        });
    } finally {
      await rename(`${tsx}-aside`, tsx);
    }
  });

  it("the project's worker script runs its agent for a run its start-run.ts client starts", async () => {
    const answer = `Support here, from the project's worker (npm ${npmMajor}).`;
    bed.server.respondWith(() => openaiReply({ content: answer }));
    const settings = agentEnvironment(); // one task queue for the worker and the client
    const worker = spawn('npm', ['run', '-s', 'worker'], {
      cwd: project,
      env: shellEnvironment(settings),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let printed = '';
    worker.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const exited = new Promise<void>((resolve) => worker.on('exit', () => resolve()));
    try {
      await waitFor('the worker to poll', () => printed.includes('worker polling') || worker.exitCode !== null, {
        timeoutMs: 180_000,
      });
      expect(printed).toMatch(/^worker agents: .*\bsupport\b/m);

      const started = await run('npm', ['start', '-s', '--', 'Hello there'], project, settings);

      expect({ code: started.code, stdout: started.stdout.trim() }).toEqual({ code: 0, stdout: answer });
      expect(bed.server.requests.at(-1)?.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Hello there' });
    } finally {
      if (worker.exitCode === null) process.kill(-worker.pid!, 'SIGINT');
      await exited;
    }
  });

  it('npx durable-agent serve serves the chat page from the installed package and answers through the ai client', async () => {
    const answer = `Hello from the installed package (npm ${npmMajor}).`;
    bed.server.respondWith(() => ({ ...openaiReply({ content: answer }), stream: { intervalMs: 10 } }));
    const port = await freePort();
    const serve = spawn('npx', ['--no-install', 'durable-agent', 'serve', '--agent', 'support', '--port', String(port)], {
      cwd: project,
      env: shellEnvironment(agentEnvironment()),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let printed = '';
    serve.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    serve.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => serve.on('exit', (code) => resolve(code)));
    try {
      await waitFor('serve to listen', () => printed.includes('(Ctrl-C stops)') || serve.exitCode !== null, {
        timeoutMs: 180_000,
      });
      expect(printed).toContain(`the chat page at http://127.0.0.1:${port}/`);
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect({ status: page.status, html: await page.text() }).toMatchObject({
        status: 200,
        html: expect.stringContaining('<div id="root">'),
      });

      const reply = await chat(`http://127.0.0.1:${port}/api/chat`, 'local', newChatId(), [userMessage('Say hello')]);

      expect(reply.invalid).toEqual([]);
      expect(textOf(reply.message)).toBe(answer);
      expect(bed.server.requests.at(-1)?.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Say hello' });
    } finally {
      if (serve.exitCode === null) process.kill(-serve.pid!, 'SIGINT');
      await exited;
    }
  });
});

it("a plain install names the overrides; with docs/agents.md's block, npm install @temporalio/client works and it loads", async () => {
  // The app durable-agent was installed into, as it is: nothing of its own but durable-agent.
  const load = () => run('node', ['-e', "require('durable-agent')"], initFrom);
  const plain = await load();
  expect({ code: plain.code, stderr: plain.stderr }).toEqual({
    code: 1,
    stderr: expect.stringContaining("Add this to your app's package.json, then run npm install again"),
  });
  // The block the installed package's own docs/agents.md gives, into the app's package.json; then the app adds a
  // Temporal package of its own, which npm refused (EOVERRIDE) against overrides that pinned it.
  const docs = await readFile(path.join(initFrom, 'node_modules', 'durable-agent', 'docs', 'agents.md'), 'utf8');
  const block = /```json\n((?:"dependencies": \{[^}]*\},\n)?"overrides": \{[^`]*\})\n```/.exec(docs)?.[1];
  expect(block).toBeDefined();
  const manifestPath = path.join(initFrom, 'package.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { dependencies: Record<string, string> };
  const documented = JSON.parse(`{${block}}`) as { dependencies?: Record<string, string>; overrides: Record<string, string> };
  await writeFile(
    manifestPath,
    JSON.stringify({ ...manifest, ...documented, dependencies: { ...manifest.dependencies, ...documented.dependencies } }),
  );
  succeeded(
    'npm install @temporalio/client',
    await run('npm', ['install', '--no-audit', '--no-fund', '@temporalio/client'], initFrom),
  );
  expect(await load()).toMatchObject({ code: 0, stderr: '' });
});
