import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCli, lastJsonLine } from '../support/cli';
import { FakeModelServer } from '../support/fake-model-server';
import { uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';
import { evalResponder, requestsPerPair } from './eval-support';

// `agent eval` as a user runs it in CI: a dataset, two candidates, the report as one JSON line and as HTML, and the
// exit codes of its gates. The CLI runs its own worker against the dev server; the fake model answers.

jest.setTimeout(120_000);
let fake: FakeModelServer;

beforeAll(async () => {
  fake = await FakeModelServer.start();
});
beforeEach(() => fake.reset());
afterAll(() => fake?.close());

const model = 'openai:gpt-4o-mini';

it('runs a dataset onto two candidates, prints the report as JSON, writes the HTML, and exits 4 under --fail-under', async () => {
  fake.respondWith(evalResponder);
  const workspace = await makeWorkspace({
    'cases.jsonl': [
      JSON.stringify({ id: 'refund', input: 'can I get a refund?', expect: [{ type: 'contains', value: 'REFUND' }] }),
      JSON.stringify({ id: 'hours', input: 'when are you open?', expect: [{ type: 'contains', value: 'REFUND' }] }),
    ].join('\n'),
  });
  const env = { ...fake.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('eval-cli') };
  const result = await runCli(
    [
      'eval',
      '--dataset',
      path.join(workspace, 'cases.jsonl'),
      '--candidate',
      `yes: model=${model}; instructions=Answer briefly.`,
      '--candidate',
      `no: model=${model}; instructions=Say no.`,
      '--workspace',
      workspace,
      '--tools',
      'refuse',
      '--json',
      '--report',
      path.join(workspace, 'report.html'),
      '--fail-under',
      '0.9',
    ],
    env,
  );
  expect({ code: result.code, stderr: result.stderr }).toEqual({
    code: 4,
    stderr: expect.stringContaining('gate failed: no scored 0.00'),
  });
  const report = lastJsonLine(result.stdout);
  expect(report).toMatchObject({
    candidates: ['yes', 'no'],
    summary: [
      { candidate: 'yes', score: 1, passed: 2, failed: 0, worse: 0 },
      { candidate: 'no', score: 0, passed: 0, failed: 2, worse: 0 },
    ],
  });
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  // Each case answered once by each candidate.
  expect(requestsPerPair(fake.requests)).toEqual({
    'Answer briefly. | can I get a refund?': 1,
    'Answer briefly. | when are you open?': 1,
    'Say no. | can I get a refund?': 1,
    'Say no. | when are you open?': 1,
  });
  // Progress on stderr as pairs end.
  expect(result.stderr).toMatch(/✓ refund · yes: score 1\.00/);
  expect(result.stderr).toMatch(/✗ hours · no: score 0\.00/);
  const html = await readFile(path.join(workspace, 'report.html'), 'utf8');
  expect(html).toMatch(/^<!doctype html>/i);
  expect(html).toContain('CAN I GET A REFUND? REFUND MAYBE.');
});

it('refuses a candidate it cannot start, before anything starts (exit 2)', async () => {
  const workspace = await makeWorkspace();
  await writeFile(path.join(workspace, 'cases.jsonl'), JSON.stringify({ input: 'hi' }));
  const result = await runCli(
    ['eval', '--dataset', path.join(workspace, 'cases.jsonl'), '--candidate', 'x: model=nosuch:model', '--workspace', workspace],
    { ...fake.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('eval-cli-refused') },
  );
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('candidate "x"');
  expect(result.stderr).toContain('unknown provider "nosuch"');
  expect(fake.requests).toHaveLength(0);
});
