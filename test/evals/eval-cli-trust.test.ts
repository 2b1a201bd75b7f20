import { readFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { lastJsonLine, runCli } from '../support/cli';
import { FakeModelServer, type ReceivedRequest } from '../support/fake-model-server';
import { uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';
import { evalResponder, isJudge } from './eval-support';

// Issue 37, "evals a CI can trust": `agent eval` as a CI job runs it, one process per step, against the dev server
// and the fake model. A recording made with `agent run --tools read_file`, then evals of it: a candidate offered the
// recording's tools; the same --id refused, its report given again by `agent eval show`; a pair the budget cut not
// counted as worse; an unknown custom grader and a workspace too large to copy refused with their reasons; a candidate
// repeated, its JUnit XML, and two evals compared (item 6).

jest.setTimeout(300_000);
let fake: FakeModelServer;
let workspace: string;
const stamp = Date.now();
const recordingId = `support-${stamp}`;
const model = 'openai:gpt-4o-mini';
// A task queue per command: a worker that polled the queue and exited with its command still counts as a poller for
// minutes, and the next command would wait for it instead of running its own.
const env = (): NodeJS.ProcessEnv => ({ ...fake.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('eval-trust') });

beforeAll(async () => {
  fake = await FakeModelServer.start();
  fake.respondWith(evalResponder);
  workspace = await makeWorkspace({ 'policy.txt': 'refunds within 30 days' });
  // The recording: the agent was given read_file (and only it) for this run, read the policy, answered from it.
  const recorded = await runCli(
    ['run', 'Can I get a refund?', '--model', model, '--system', 'Look it up.', '--tools', 'read_file'].concat([
      '--workspace',
      workspace,
      '--id',
      recordingId,
      '--json',
    ]),
    env(),
  );
  expect({ code: recorded.code, stderr: recorded.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  expect(lastJsonLine(recorded.stdout)).toMatchObject({ answer: 'Per policy: refunds within 30 days' });
});
// reset() forgets the responder too: every test (and every step that resets) answers as the recording was answered.
const resetFake = () => {
  fake.reset();
  fake.respondWith(evalResponder);
};
beforeEach(resetFake);
afterAll(() => fake?.close());

const candidateRequests = () => fake.requests.filter((request) => !isJudge(request));
const offeredTools = (request: ReceivedRequest) =>
  (request.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);

it('offers a candidate the recording tools, refuses a used --id, and shows that eval again with eval show', async () => {
  const evalId = `eval-trust-${stamp}`;
  const evalArgs = ['eval', '--runs', recordingId, '--candidate', `same: model=${model}; instructions=Look it up.`].concat([
    '--grader',
    'contains:30 days',
    '--workspace',
    workspace,
    '--id',
    evalId,
  ]);
  const first = await runCli([...evalArgs, '--json'], env());
  expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  const report = lastJsonLine(first.stdout) as { cases: Array<{ outcomes: Array<Record<string, unknown>> }> };
  // The candidate named no tools: it was offered the recording's read_file, and its call got the recorded result.
  expect(candidateRequests().map(offeredTools)).toEqual([['read_file'], ['read_file']]);
  expect(report.cases[0].outcomes.map((outcome) => [outcome.candidate, outcome.answer, outcome.pass])).toEqual([
    ['recorded', 'Per policy: refunds within 30 days', true],
    ['same', 'Per policy: refunds within 30 days', true],
  ]);
  expect(report.cases[0].outcomes[1].toolCalls).toEqual([
    { name: 'read_file', arguments: { path: 'policy.txt' }, result: 'refunds within 30 days', isError: false },
  ]);

  // The same command again: nothing starts (no pair failing "already started", no bogus report), and it says where the report is.
  resetFake();
  const again = await runCli([...evalArgs, '--json'], env());
  expect(again.code).toBe(2);
  expect(again.stderr).toContain(`eval "${evalId}" already ran (completed): agent eval show ${evalId} prints its table`);
  expect(again.stdout).toBe('');
  expect(fake.requests).toHaveLength(0);

  // eval show: the same report, as JSON and as HTML, the gates applied; nothing run again.
  const reportFile = path.join(workspace, 'shown.html');
  const shown = await runCli(['eval', 'show', evalId, '--json', '--report', reportFile, '--fail-under', '0.9'], env());
  expect({ code: shown.code, stderr: shown.stderr }).toEqual({
    code: 0,
    stderr: expect.stringContaining(`eval ${evalId}: completed`),
  });
  expect(lastJsonLine(shown.stdout)).toEqual(report);
  expect(await readFile(reportFile, 'utf8')).toContain('Per policy: refunds within 30 days');
  expect(fake.requests).toHaveLength(0);
});

it('reports a pair the budget cut as not run: never scored, not worse, --fail-on-worse passes', async () => {
  // One case; the candidate's first call fits the budget (worst case ~$0.000034), the second does not after it spent
  // $0.000027 (worst case ~$0.00005 with the tool result): its run is stopped mid-way by its allowance.
  const cut = await runCli(
    ['eval', '--runs', recordingId, '--candidate', `same: model=${model}; instructions=Look it up.; max-output-tokens=50`]
      .concat(['--grader', 'contains:30 days', '--workspace', workspace, '--budget-usd', '0.00005', '--concurrency', '1'])
      .concat(['--fail-on-worse', '--json']),
    env(),
  );
  expect({ code: cut.code, stderr: cut.stderr }).toEqual({ code: 0, stderr: expect.not.stringContaining('gate failed') });
  expect(candidateRequests()).toHaveLength(1);
  const report = lastJsonLine(cut.stdout) as {
    cases: Array<{ outcomes: Array<{ candidate: string }> }>;
    summary: Array<Record<string, unknown>>;
    stopped: Record<string, unknown>;
  };
  expect(report.cases[0].outcomes.map((outcome) => outcome.candidate)).toEqual(['recorded']);
  expect(report.stopped).toEqual({
    reason: 'budget',
    notRun: [`${recordingId}#1`],
    cut: [{ case: `${recordingId}#1`, candidate: 'same', costUsd: expect.closeTo(0.000027, 9) }],
  });
  expect(report.summary[1]).toEqual({
    candidate: 'same',
    score: 0,
    passed: 0,
    failed: 0,
    costUsd: expect.closeTo(0.000027, 9),
    worse: 0,
  });
});

it('refuses an unknown custom grader before anything starts, and says why a workspace cannot be copied', async () => {
  const dataset = path.join(workspace, 'cases.jsonl');
  await writeFile(dataset, JSON.stringify({ id: 'hi', input: 'hi' }));
  const candidate = ['--candidate', `mini: model=${model}; instructions=Answer briefly.`];
  const unknownGrader = await runCli(
    ['eval', '--dataset', dataset, ...candidate, '--grader', 'custom:nosuch', '--workspace', workspace],
    env(),
  );
  expect(unknownGrader.code).toBe(2);
  expect(unknownGrader.stderr).toContain('no grader named "nosuch" is registered');
  expect(unknownGrader.stderr).not.toContain('started eval');

  // A workspace past the scratch copy's 100 MB (a sparse file: nothing is written to disk).
  const large = await makeWorkspace({ 'data.bin': '' });
  await truncate(path.join(large, 'data.bin'), 101 * 1024 * 1024);
  const tooLarge = await runCli(['eval', '--dataset', dataset, ...candidate, '--workspace', large], env());
  expect(tooLarge.code).toBe(1);
  expect(tooLarge.stderr).toContain('eval failed: no scratch copy of the workspace: the workspace');
  expect(tooLarge.stderr).toContain('holds more than 104857600 bytes of files');
  expect(tooLarge.stderr).not.toContain('Activity task failed');
  expect(fake.requests).toHaveLength(0);
});

it('repeats a candidate with its mean, spread and pass@k, writes JUnit, and compares two evals side by side', async () => {
  const [repeated, single] = [`eval-repeat-${stamp}`, `eval-single-${stamp}`];
  const evalOf = (id: string, candidate: string, more: string[]) =>
    runCli(
      ['eval', '--runs', recordingId, '--candidate', `${candidate}: model=${model}; instructions=Look it up.`]
        .concat(['--grader', 'contains:30 days', '--workspace', workspace, '--id', id, '--json'])
        .concat(more),
      env(),
    );
  const junit = path.join(workspace, 'eval-junit.xml');
  const first = await evalOf(repeated, 'same', ['--repeat', '2', '--junit', junit]);
  expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  const report = lastJsonLine(first.stdout) as { cases: Array<{ repeats: unknown; outcomes: Array<Record<string, unknown>> }> };
  expect(report.cases[0].outcomes.map((outcome) => [outcome.candidate, outcome.repeat, outcome.pass])).toEqual([
    ['recorded', undefined, true],
    ['same', 1, true],
    ['same', 2, true],
  ]);
  expect(report.cases[0].repeats).toEqual([{ candidate: 'same', runs: 2, mean: 1, stdev: 0, passAtK: [1, 1] }]);
  const xml = await readFile(junit, 'utf8');
  expect(xml).toContain('<testsuite name="same" tests="2" failures="0" skipped="0"');
  expect(xml).toContain(`<testcase classname="same" name="${recordingId}#1 (run 2)" time="0"/>`);

  const second = await evalOf(single, 'other', []);
  expect(second.code).toBe(0);
  const compared = await runCli(['eval', 'compare', repeated, single, '--json'], env());
  expect({ code: compared.code, stderr: compared.stderr }).toEqual({
    code: 0,
    stderr: expect.stringContaining('comparing 1 case(s) both evals answered'),
  });
  const comparison = lastJsonLine(compared.stdout) as Record<string, unknown> & { cases: typeof report.cases };
  expect(comparison.candidates).toEqual(['recorded', `same@${repeated}`, `other@${single}`]);
  expect(comparison.compared).toEqual({ evals: [repeated, single], onlyInFirst: [], onlyInSecond: [] });
  expect(comparison.cases[0].outcomes.map((outcome) => [outcome.candidate, outcome.repeat])).toEqual([
    ['recorded', undefined],
    [`same@${repeated}`, 1],
    [`same@${repeated}`, 2],
    [`other@${single}`, undefined],
  ]);
});
