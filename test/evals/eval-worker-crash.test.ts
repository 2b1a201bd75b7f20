import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startEval } from '../../evals/run-eval';
import { FakeModelServer, openaiError, openaiReply } from '../support/fake-model-server';
import { killSpawnedWorkers, spawnWorker } from '../support/spawned-worker';
import { connectToTestServer, uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';
import { lastUserOf, numberedCases } from './eval-support';

// An eval whose worker, a real process, is SIGKILLed half way: worker B finishes it, and no case is run (or paid)
// twice. The fake model counts every request per case; the cases of the second half are rate limited once (429 with
// Retry-After), so at the kill they wait for their retry with nothing running, as a real eval often does.

const testTimeoutMs = 180_000;
let environment: TestWorkflowEnvironment;
let fake: FakeModelServer;

beforeAll(async () => {
  environment = await connectToTestServer();
  fake = await FakeModelServer.start();
});
afterEach(() => killSpawnedWorkers());
afterAll(async () => {
  await killSpawnedWorkers();
  await fake?.close();
  await environment?.teardown();
});

it(
  'finishes an eval whose worker was SIGKILLed mid-eval, with no case answered twice',
  async () => {
    const limited = new Set<string>();
    fake.respondWith((request) => {
      const question = lastUserOf(request);
      if (/^Question [34]:/.test(question) && !limited.has(question)) {
        limited.add(question);
        return openaiError(429, 'Rate limit reached', { 'retry-after': '8' });
      }
      return openaiReply({ content: `Answer to ${question}` });
    });
    const taskQueue = uniqueTaskQueue('eval-crash');
    const startWorker = (identity: string) =>
      spawnWorker({ address: process.env.TEST_TEMPORAL_ADDRESS!, taskQueue, identity, env: fake.providerEnv });
    const workerA = await startWorker('worker-a');
    const evalId = `eval-crash-${Date.now()}`;
    const handle = await startEval(environment.client, {
      evalId,
      cases: numberedCases(4),
      candidates: [{ name: 'brief', model: 'openai:gpt-4o-mini', instructions: 'Answer briefly.' }],
      graders: [{ type: 'contains', value: 'Answer' }],
      workspace: await makeWorkspace(),
      taskQueue,
      concurrency: 2,
      tools: 'refuse',
    });

    // Cases 1 and 2 answered and closed; cases 3 and 4 each refused once, waiting for their retry.
    const closed = async (caseId: string) =>
      (
        await environment.client.workflow
          .getHandle(`${evalId}/${caseId}/brief`)
          .describe()
          .catch(() => undefined)
      )?.status.name === 'COMPLETED';
    await waitFor(
      'cases 1 and 2 answered, cases 3 and 4 rate limited',
      async () => (await closed('case-1')) && (await closed('case-2')) && limited.size === 2,
      { timeoutMs: 90_000 },
    );
    await workerA.kill();
    await startWorker('worker-b');

    const report = await handle.result();
    expect(report.cases.map((entry) => [entry.case.id, entry.outcomes[0].answer, entry.outcomes[0].pass])).toEqual([
      ['case-1', 'Answer to Question 1: is a refund possible?', true],
      ['case-2', 'Answer to Question 2: is a refund possible?', true],
      ['case-3', 'Answer to Question 3: is a refund possible?', true],
      ['case-4', 'Answer to Question 4: is a refund possible?', true],
    ]);
    // Every case got exactly one answer from the model (3 and 4 their refused attempt too): none was run twice.
    const questions = fake.requests.map((request) => lastUserOf(request).slice(0, 10)).sort();
    expect(questions).toEqual(['Question 1', 'Question 2', 'Question 3', 'Question 3', 'Question 4', 'Question 4']);
    // Each child run started once: its first run is its only run, and the second start of an id was never tried.
    for (const caseId of ['case-1', 'case-2', 'case-3', 'case-4']) {
      const child = await environment.client.workflow.getHandle(`${evalId}/${caseId}/brief`).describe();
      expect(child.status.name).toBe('COMPLETED');
      expect(child.runId).toBe(child.raw.workflowExecutionInfo?.firstRunId);
    }
  },
  testTimeoutMs,
);
