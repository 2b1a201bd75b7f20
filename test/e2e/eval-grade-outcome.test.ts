import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadDefinitions } from '../../agents/load-definitions';
import { createAgentRegistry } from '../../agents/registry';
import type { CaseOutcome, EvalCase, GradeResult, GraderSpec } from '../../core/eval-types';
import { createAgentWorker } from '../../worker/create-worker';
import { activityCalls } from '../support/activity-calls';
import { fetchEvents } from '../support/history';
import { connectToTestServer, inProcessTestWorker, testWorkspaceRoot, uniqueTaskQueue } from '../support/temporal';
import type { TestWorkflowEnvironment } from '@temporalio/testing';

// Issue 32: graders of the user's own, exported by a definitions module (AGENT_DEFINITIONS) and registered like
// tools, run by the gradeOutcome activity every agent worker has, beside the built-in graders. A grader's bug or an
// unknown name is that grader's score of 0 with the reason; the activity, and so the eval, does not fail.

let environment: TestWorkflowEnvironment;
beforeAll(async () => {
  environment = await connectToTestServer();
});
afterAll(() => environment?.teardown());

const evalCase: EvalCase = {
  id: 'greeting',
  source: { kind: 'dataset', file: 'cases.jsonl', line: 3 },
  context: [],
  prompt: 'Say hello to the team',
  toolFixtures: [],
};
const outcome: CaseOutcome = {
  caseId: 'greeting',
  candidate: 'candidate-a',
  workflowId: 'eval-1-greeting-candidate-a',
  answer: 'Hello team, and welcome!',
  status: 'completed',
  toolCalls: [],
  usage: { inputTokens: 12, outputTokens: 6, costUsd: 0.0001 },
  iterations: 1,
};
const specs: GraderSpec[] = [
  { type: 'contains', value: 'hello', ignoreCase: true },
  { type: 'judge', rubric: 'Is it warm?', model: 'openai:gpt-4o-mini' },
  { type: 'custom', name: 'mentions', options: { words: ['hello', 'team', 'goodbye'] } },
  { type: 'custom', name: 'no-echo' },
  { type: 'custom', name: 'broken' },
  { type: 'custom', name: 'generous' },
  { type: 'custom', name: 'tone' },
  { type: 'regex', pattern: '^Hello\\b' },
];

it('grades an outcome with custom graders from a definitions module and built-in ones, a grader bug scoring 0', async () => {
  const definitions = loadDefinitions({ AGENT_DEFINITIONS: path.join(__dirname, '..', 'fixtures', 'evals', 'graders.ts') });
  const registry = createAgentRegistry(definitions);
  expect([...registry.graders.keys()]).toEqual(['mentions', 'no-echo', 'broken', 'generous']);
  const taskQueue = uniqueTaskQueue('grade-outcome');
  // The agent worker as every deployment assembles it, with a workflow of this test's that calls gradeOutcome.
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    namespace: environment.namespace ?? 'default',
    taskQueue,
    registry,
    env: {},
    workspaceRoot: testWorkspaceRoot,
    overrides: {
      workflowsPath: path.join(__dirname, '..', 'fixtures', 'evals', 'grade-outcome-workflow.ts'),
      ...inProcessTestWorker,
    },
  });
  const workflowId = `grade-outcome-${randomUUID()}`;
  const grades = await worker.runUntil(
    environment.client.workflow.execute<(input: unknown) => Promise<GradeResult[]>>('gradeOutcomeWorkflow', {
      taskQueue,
      workflowId,
      args: [{ specs, evalCase, outcome }],
    }),
  );

  expect(grades).toEqual([
    { grader: 'contains "hello" (any case)', score: 1, pass: true, reason: 'the answer contains "hello"' },
    { grader: 'mentions', score: 2 / 3, pass: true, reason: 'mentions hello, team of hello, team, goodbye' },
    { grader: 'no-echo', score: 1, pass: true, reason: 'does not repeat the question' },
    { grader: 'broken', score: 0, pass: false, reason: 'the grader threw: grader bug: words is undefined' },
    {
      grader: 'generous',
      score: 0,
      pass: false,
      reason: 'the grader returned score 7; a score is a number from 0 to 1',
    },
    { grader: 'tone', score: 0, pass: false, reason: 'no grader named "tone" is registered on this worker' },
    { grader: 'regex /^Hello\\b/', score: 1, pass: true, reason: 'the answer matches' },
  ]);
  // One activity, one attempt, completed: the judge spec was left to its own child run, and no grader failed it.
  const calls = activityCalls(await fetchEvents(environment.client, workflowId));
  expect(calls.map(({ activityType, attempt, failure }) => ({ activityType, attempt, failure }))).toEqual([
    { activityType: 'gradeOutcome', attempt: 1, failure: undefined },
  ]);
}, 180_000);
