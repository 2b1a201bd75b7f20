import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { historyChainFormat } from '../../client/history-chain';
import { workflowsPath } from '../../worker/agent-plugin';
import { runCli } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// Issue 30, item 4: the replay gate could pass without checking anything. `agent history --out` saved a chain's
// latest run only, so `replay --file` missed a divergence at continue-as-new; a --query that matched no run passed;
// a file holding only the start event hung the replay.

const bed = useTestBed();
jest.setTimeout(240_000);

async function bundleWith(interceptor: string): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger: new DefaultLogger('WARN'),
    workflowInterceptorModules: [path.join(__dirname, '..', 'fixtures', 'versioning', interceptor)],
  });
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'replay-chain-bundle-')), 'bundle.js');
  await writeFile(file, code);
  return file;
}

it('exports every run of a chain, and catches from the file a divergence at continue-as-new', async () => {
  // One tool round, then the run continues as new (after one model call) and answers in its second run.
  const taskQueue = uniqueTaskQueue('replay-chain');
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha!' });
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
    openaiReply({ content: 'It says alpha!' }),
  );
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const { result, workflowId } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, {
      prompt: 'What does alpha.txt say?',
      model: 'openai:gpt-4o-mini',
      tools: ['read_file'],
      continueAsNewAfterModelCalls: 1,
      workspace,
    }),
  );
  expect(result).toMatchObject({ status: 'completed', answer: 'It says alpha!' });

  const directory = await mkdtemp(path.join(os.tmpdir(), 'replay-chain-'));
  const chainFile = path.join(directory, 'chain.json');
  const saved = await runCli(['history', workflowId, '--out', chainFile]);
  expect(saved.code).toBe(0);
  expect(saved.stderr).toContain(`saved 2 runs (`);
  const chain = JSON.parse(await readFile(chainFile, 'utf8'));
  expect(chain).toMatchObject({ format: historyChainFormat, version: 1, workflowId });
  const [first, latest] = chain.runs.map((run: unknown) => historyFromJSON(run));
  const runIdOf = (history: typeof first) => history.events[0].workflowExecutionStartedEventAttributes.originalExecutionRunId;
  // Oldest first: the second run continued the first.
  expect(latest.events[0].workflowExecutionStartedEventAttributes.continuedExecutionRunId).toBe(runIdOf(first));
  // The latest run alone, in the single-history format older `agent history` wrote, is still read.
  const latestFile = path.join(directory, 'latest.json');
  await writeFile(latestFile, historyToJSON(latest));

  const shipped = await runCli(['replay', '--file', chainFile, '--file', latestFile]);
  expect(shipped.stdout).toBe(
    [
      `${workflowId} ${runIdOf(first)} ok`,
      `${workflowId} ${runIdOf(latest)} ok`,
      `${workflowId} ${runIdOf(latest)} ok`,
      '3 runs replayed: 3 ok, 0 FAILED',
      '',
    ].join('\n'),
  );
  expect(shipped.code).toBe(0);

  // A timer before each continue-as-new: the first run diverges, the latest does not.
  const changed = { AGENT_WORKFLOW_BUNDLE: await bundleWith('pause-before-continue-as-new.ts') };
  const fromLatest = await runCli(['replay', '--file', latestFile], changed);
  expect(fromLatest.code).toBe(0);
  const fromChain = await runCli(['replay', '--file', chainFile], changed);
  expect(fromChain.code).toBe(1);
  const lines = fromChain.stdout.split('\n');
  expect(lines[0]).toMatch(new RegExp(`^${workflowId} ${runIdOf(first)} FAILED: `));
  expect(lines.slice(1)).toEqual([`${workflowId} ${runIdOf(latest)} ok`, '2 runs replayed: 1 ok, 1 FAILED', '']);
  // The server gate says the same of the same runs.
  const fromServer = await waitFor('both runs in the replay listing', async () => {
    const replay = await runCli(['replay', '--query', `WorkflowId = '${workflowId}'`], changed);
    return replay.stdout.includes('2 runs replayed') && replay;
  });
  expect(fromServer.code).toBe(1);
  expect(fromServer.stdout).toContain(`${workflowId} ${runIdOf(first)} FAILED: `);
});

it('exits 1 when --query matches no run, so a typo fails the gate, and 0 with --allow-empty', async () => {
  const query = ['replay', '--query', `WorkflowId = 'no-such-run-${Date.now()}'`];
  const typo = await runCli(query);
  expect(typo).toMatchObject({ code: 1, stdout: '' });
  expect(typo.stderr).toContain('no run matched --query');
  const allowed = await runCli([...query, '--allow-empty']);
  expect(allowed).toMatchObject({ code: 0, stdout: '0 runs replayed: 0 ok, 0 FAILED\n' });
});

it('answers a history file that holds only its start event, without waiting for a task that never comes', async () => {
  const recorded = JSON.parse(await readFile(path.join(__dirname, '..', 'replay', 'histories', 'agent-run-fork.json'), 'utf8'));
  const runId = recorded.events[0].workflowExecutionStartedEventAttributes.originalExecutionRunId;
  recorded.events = recorded.events.slice(0, 1);
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'replay-start-only-')), 'start-only.json');
  await writeFile(file, JSON.stringify(recorded));
  // Before, this replay never ended (killed after 150 s); the test's own timeout bounds it now.
  const replay = await runCli(['replay', '--file', file]);
  expect(replay).toMatchObject({ code: 0 });
  expect(replay.stdout).toBe(
    `replay-agent-run-fork ${runId} ok (no workflow task ran in this history: no command to compare)\n1 run replayed: 1 ok, 0 FAILED\n`,
  );
});
