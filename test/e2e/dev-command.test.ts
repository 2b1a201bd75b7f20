import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePorts, portAccepts } from '../../cli/dev-server/free-port';
import { collect, lastJsonLine, runCli, spawnCli } from '../support/cli';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// Issue 31 item 6: the Web UI link a first `agent run` prints died with the command's embedded server. `agent dev`
// keeps that server, its Web UI and a worker running: a run from another terminal uses them, and its link still
// answers after the run's command has exited.

let model: FakeModelServer;
beforeAll(async () => {
  model = await FakeModelServer.start();
});
afterAll(() => model?.close());

it("keeps the server, the Web UI and a worker after a run's command exits, until Ctrl-C", async () => {
  const [port, uiPort] = await freePorts(2);
  const stateFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'dev-state-')), 'temporal-dev.db');
  const env = {
    ...model.providerEnv,
    TEMPORAL_ADDRESS: undefined,
    AGENT_STATE_FILE: stateFile,
    AGENT_TASK_QUEUE: uniqueTaskQueue('dev'),
  };
  const dev = spawnCli(['dev', '--port', String(port), '--ui-port', String(uiPort)], env, { stdin: 'ignore' });
  let devSaid = '';
  dev.stderr!.on('data', (chunk: Buffer) => (devSaid += chunk.toString()));
  const devEnded = collect(dev);
  try {
    await waitFor('agent dev to be ready', () => devSaid.includes('stay open until Ctrl-C'), { timeoutMs: 120_000 });
    // The ports are not the defaults: it says what other terminals export.
    const exported = `export TEMPORAL_ADDRESS=127.0.0.1:${port} TEMPORAL_UI_URL=http://localhost:${uiPort}`;
    expect(devSaid).toContain(exported);

    model.enqueue(openaiReply({ content: 'answered by the worker of agent dev' }));
    const workflowId = `dev-${Date.now()}`;
    const runEnv = { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_UI_URL: `http://localhost:${uiPort}` };
    const run = await runCli(['run', 'hello', '--json', '--id', workflowId, '--workspace', await makeWorkspace()], runEnv);
    expect(run.code).toBe(0);
    expect(lastJsonLine(run.stdout)).toMatchObject({ status: 'completed', answer: 'answered by the worker of agent dev' });
    // agent dev's worker ran it: the command started neither a server nor a worker, and has nothing to warn about.
    expect(run.stderr).not.toContain('running one in this process');
    expect(run.stderr).not.toContain('the embedded Temporal server stops');
    const link = /Web UI: (\S+)/.exec(run.stderr)?.[1];
    expect(link).toMatch(new RegExp(`^http://localhost:${uiPort}/namespaces/default/workflows/${workflowId}/`));

    // The command has exited; the link still opens, and the Web UI's API has the run.
    expect((await fetch(link!)).status).toBe(200);
    const described = await fetch(`http://localhost:${uiPort}/api/v1/namespaces/default/workflows/${workflowId}`);
    expect(described.status).toBe(200);
    expect(JSON.stringify(await described.json())).toContain('WORKFLOW_EXECUTION_STATUS_COMPLETED');
  } finally {
    dev.kill('SIGINT');
  }
  const ended = await devEnded;
  expect(ended.code).toBe(0);
  expect(await portAccepts(port)).toBe(false);
  expect(await portAccepts(uiPort)).toBe(false);
});

it('refuses to start over a server that is already there, saying which port', async () => {
  const [port] = await freePorts(1);
  const busy = (await import('node:net')).createServer().listen(port, '127.0.0.1');
  try {
    const dev = await runCli(['dev', '--port', String(port), '--ui-port', '1'], { TEMPORAL_ADDRESS: undefined });
    expect(dev.code).toBe(1);
    expect(dev.stderr).toContain(`something already listens on 127.0.0.1:${port}`);
  } finally {
    busy.close();
  }
});
