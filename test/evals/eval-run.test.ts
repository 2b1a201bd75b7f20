import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { runEval } from '../../evals/run-eval';
import type { EvalEvent } from '../../core/stream-events';
import { createTestWorker, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';
import { evalResponder, hoursCase, numberedCases, refundCase, requestsPerPair } from './eval-support';

/**
 * The durable eval end to end on the dev server, with the fake model (it counts every request): candidates compared
 * with the recorded baseline, judged by child runs; the budget stopping an eval; batch mode.
 */
const bed = useTestBed();
jest.setTimeout(120_000);

const model = 'openai:gpt-4o-mini';
// gpt-4o-mini: $0.15 in, $0.60 out per million tokens; every fake reply is 100 in, 20 out.
const callUsd = (100 * 0.15 + 20 * 0.6) / 1e6;

it('compares two candidates with the recorded answers, each case answered once per candidate, judged as child runs', async () => {
  bed.server.respondWith(evalResponder);
  const taskQueue = uniqueTaskQueue('eval');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const workspace = await makeWorkspace({ 'policy.txt': 'REAL: the workspace file, never read by the eval' });
  const events: EvalEvent[] = [];
  const evalId = `eval-compare-${Date.now()}`;
  const report = await worker.runUntil(
    runEval(bed.environment.client, {
      evalId,
      cases: [refundCase, hoursCase],
      candidates: [
        { name: 'brief', model, instructions: 'Answer briefly.' },
        { name: 'lookup', model, instructions: 'Look it up.', tools: ['read_file'] },
      ],
      graders: [
        { type: 'contains', value: 'refund', ignoreCase: true },
        { type: 'judge', rubric: 'Does the answer name the 30-day refund policy?', model },
      ],
      workspace,
      taskQueue,
      concurrency: 3,
      onEvent: (event) => events.push(event),
    }),
  );

  // Each candidate answered each case once (lookup: its tool call, then its answer); each of the six pairs (the
  // recorded baseline's too) was judged once; nothing else reached the model.
  expect(requestsPerPair(bed.server.requests)).toEqual({
    'Answer briefly. | Can I get a refund?': 1,
    'Answer briefly. | When are you open?': 1,
    'Look it up. | Can I get a refund?': 2,
    'Look it up. | When are you open?': 2,
    'judge | Can I get a refund?': 3,
    'judge | When are you open?': 3,
  });
  expect(bed.server.refusals).toEqual([]);
  // The recorded conversation came before the prompt.
  const refundRequest = bed.server.requests.find((request) => request.body.messages.at(-1)?.content === 'Can I get a refund?');
  expect(refundRequest!.body.messages.slice(1)).toEqual([
    { role: 'user', content: 'Hello' },
    { role: 'assistant', content: 'Hi, how can I help?' },
    { role: 'user', content: 'Can I get a refund?' },
  ]);

  expect(report.evalId).toBe(evalId);
  expect(report.candidates).toEqual(['recorded', 'brief', 'lookup']);
  const refund = report.cases.find((entry) => entry.case.id === 'refund')!;
  expect(refund.outcomes.map((outcome) => [outcome.candidate, outcome.workflowId])).toEqual([
    ['recorded', ''],
    ['brief', `${evalId}/refund/brief`],
    ['lookup', `${evalId}/refund/lookup`],
  ]);
  const [recorded, brief, lookup] = refund.outcomes;
  // The recording's answer was graded, never run again: it says no refund and names no policy.
  expect(recorded).toMatchObject({ answer: 'Sorry, I cannot help with that.', status: 'completed', pass: false, score: 0.1 });
  expect(brief).toMatchObject({ answer: 'CAN I GET A REFUND? REFUND MAYBE.', pass: false, score: 0.6 });
  // The recorded fixture answered lookup's call on the refund case: the workspace's own file was never read.
  expect(lookup.toolCalls).toEqual([
    { name: 'read_file', arguments: { path: 'policy.txt' }, result: 'RECORDED: refunds within 30 days', isError: false },
  ]);
  expect(lookup).toMatchObject({ answer: 'Per policy: RECORDED: refunds within 30 days', pass: true, score: 1 });
  expect(lookup.grades.map((grade) => [grade.grader, grade.pass])).toEqual([
    [expect.stringContaining('contains'), true],
    [expect.stringContaining('judge'), true],
  ]);
  expect(lookup.grades[1].usage).toMatchObject({ inputTokens: 100, outputTokens: 20 });

  // On the hours case lookup's read ran on a scratch copy of the workspace (no fixture), with the real file's text.
  const hoursLookup = report.cases.find((entry) => entry.case.id === 'hours')!.outcomes[2];
  expect(hoursLookup.toolCalls[0].result).toBe('REAL: the workspace file, never read by the eval');
  expect(await readFile(path.join(workspace, 'policy.txt'), 'utf8')).toBe('REAL: the workspace file, never read by the eval');
  expect(await readdir(workspace)).toEqual(['policy.txt']);

  // The summary: mean scores, passes, cost (runs and judges), cases worse than the recording.
  const summary = Object.fromEntries(report.summary.map((entry) => [entry.candidate, entry]));
  expect(summary.recorded).toMatchObject({ passed: 0, failed: 2, worse: 0, costUsd: expect.closeTo(2 * callUsd, 12) });
  expect(summary.brief).toMatchObject({ passed: 0, failed: 2, worse: 0, costUsd: expect.closeTo(4 * callUsd, 12) });
  // On hours, lookup's answer (the file's text) mentions no refund where the recording did: worse than recorded.
  expect(summary.lookup).toMatchObject({ passed: 1, failed: 1, worse: 1, costUsd: expect.closeTo(6 * callUsd, 12) });

  // Progress streamed like any run's: every pair started and ended, then the eval.
  expect(events.filter((event) => event.type === 'eval_pair_end')).toHaveLength(6);
  expect(events.filter((event) => event.type === 'eval_pair_start')).toHaveLength(6);
  expect(events.at(-1)).toEqual({ type: 'eval_end', pairs: 6, notRun: 0 });
});

it('stops starting runs once the spend and the next run would pass the budget, and says which cases did not run', async () => {
  bed.server.respondWith(evalResponder);
  const taskQueue = uniqueTaskQueue('eval-budget');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  // Each run: one call, worst case ~$0.000035 at 50 output tokens; spent $0.000027. A budget for three runs.
  const budgetUsd = 0.0001;
  const report = await worker.runUntil(
    runEval(bed.environment.client, {
      cases: numberedCases(5),
      candidates: [{ name: 'brief', model, instructions: 'Answer briefly.', modelSettings: { maxOutputTokens: 50 } }],
      workspace: bed.workspace,
      taskQueue,
      concurrency: 1,
      budgetUsd,
      tools: 'refuse',
    }),
  );
  expect(bed.server.requests).toHaveLength(3);
  expect(report.cases.map((entry) => entry.case.id)).toEqual(['case-1', 'case-2', 'case-3']);
  expect(report.stopped).toEqual({ reason: 'budget', notRun: ['case-4', 'case-5'] });
  expect(report.summary[0].costUsd).toBeCloseTo(3 * callUsd, 12);
  expect(report.summary[0].costUsd).toBeLessThanOrEqual(budgetUsd);
});

it('sends candidate and judge calls through the batch API with --batch, at the batch price', async () => {
  bed.server.respondWith(evalResponder);
  const taskQueue = uniqueTaskQueue('eval-batch');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const report = await worker.runUntil(
    runEval(bed.environment.client, {
      cases: numberedCases(2),
      candidates: [{ name: 'brief', model, instructions: 'Answer briefly.' }],
      graders: [{ type: 'judge', rubric: 'Is a refund mentioned?', model }],
      workspace: bed.workspace,
      taskQueue,
      tools: 'refuse',
      batch: { firstCheckSeconds: 0.1, maxCheckIntervalSeconds: 0.4, maxSubmissions: 2 },
    }),
  );
  // Two candidate calls and two judge calls, each a batch of one; no online call.
  expect(bed.server.batches.batches).toHaveLength(4);
  expect(bed.server.requests.every((request) => request.batchId !== undefined)).toBe(true);
  expect(bed.server.requests.filter((request) => request.body.response_format)).toHaveLength(2);
  expect(report.summary[0].costUsd).toBeCloseTo(4 * callUsd * 0.5, 12);
  expect(report.cases.map((entry) => entry.outcomes[0].status)).toEqual(['completed', 'completed']);
});
