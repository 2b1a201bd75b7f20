import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { freePort } from '../../cli/dev-server/free-port';
import { collect, lastJsonLine, spawnCli } from '../support/cli';
import { openaiError, openaiReply } from '../support/fake-model-server';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';

// A model call that fails and is retried says so as it happens (issue 31): on `agent run`'s stderr and on the run's
// stream (`watch --json`), with the attempt, the host the provider was called at, and the error. Before, a run whose
// endpoint could not be reached printed nothing for four minutes, then a failure that did not say where it called.

const bed = useTestBed();

function watchOutput(child: ReturnType<typeof spawnCli>): { stdout: () => string; stderr: () => string } {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { stdout: () => stdout, stderr: () => stderr };
}

/** The text and every base64 string in it decoded, as deep as payloads nest (a stream item is a payload in a signal's). */
function withDecoded(text: string, depth = 3): string {
  if (depth === 0) return text;
  const decoded = [...text.matchAll(/[A-Za-z0-9+/]{16,}={0,2}/g)].map(([found]) =>
    Buffer.from(found, 'base64').toString('latin1'),
  );
  return [text, ...decoded.map((inner) => withDecoded(inner, depth - 1))].join('\n');
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

it('shows each failed attempt (attempt, host, error) on stderr and in watch --json while retrying, then the answer', async () => {
  let answerNow: () => void = () => {};
  const gate = new Promise<void>((resolve) => (answerNow = resolve));
  bed.server.enqueue(openaiError(503, 'overloaded'), openaiError(503, 'overloaded'), {
    gate,
    then: openaiReply({ content: 'answered on the third attempt' }),
  });
  const env = { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('retry-notice') };
  const workflowId = `retry-notice-${Date.now()}`;
  const run = spawnCli(['run', 'hello', '--json', '--no-stream', '--id', workflowId, '--workspace', bed.workspace], env, {
    stdin: 'ignore',
  });
  const runSaid = watchOutput(run);
  const runEnded = collect(run);
  const host = new URL(bed.server.url).host;

  // While the third attempt is held, both failures are already on the run's stderr, as lines a person reads.
  await waitFor('the run to announce both failed attempts', () => runSaid.stderr().includes('(attempt 2,'), {
    timeoutMs: 90_000,
  });
  expect(runSaid.stderr()).toContain(`model call failed (attempt 1, ${host}: HTTP 503: overloaded); retrying in 1 s`);
  expect(runSaid.stderr()).toContain(`model call failed (attempt 2, ${host}: HTTP 503: overloaded); retrying in 2 s`);

  // A watcher from elsewhere reads them from the stream, one JSON event each, still before the answer.
  const watch = spawnCli(['watch', workflowId, '--json'], env, { stdin: 'ignore' });
  const watchSaid = watchOutput(watch);
  const watchEnded = collect(watch);
  const retries = await waitFor('the watcher to print both retries', () => {
    const events = jsonLines(watchSaid.stdout()).filter((event) => event.type === 'model_retry');
    return events.length === 2 && events;
  });
  expect(retries).toEqual([
    expect.objectContaining({ model: 'openai:gpt-4o-mini', attempt: 1, host, error: 'HTTP 503: overloaded', retryInMs: 1000 }),
    expect.objectContaining({ model: 'openai:gpt-4o-mini', attempt: 2, host, error: 'HTTP 503: overloaded', retryInMs: 2000 }),
  ]);
  expect(jsonLines(watchSaid.stdout()).some((event) => event.type === 'reply')).toBe(false);

  answerNow();
  const [ran, watched] = await Promise.all([runEnded, watchEnded]);
  expect(ran.code).toBe(0);
  expect(lastJsonLine(ran.stdout)).toMatchObject({ status: 'completed', answer: 'answered on the third attempt' });
  expect(watched.code).toBe(0);
  expect(lastJsonLine(watched.stdout)).toMatchObject({ type: 'run_end', answer: 'answered on the third attempt' });
  expect(bed.server.requests).toHaveLength(3);
  expect(bed.server.refusals).toEqual([]);
});

it('names the unreachable host in each retry and in the failure, and keeps the key and the query string out of history', async () => {
  const closedPort = await freePort();
  const env = {
    AGENT_TASK_QUEUE: uniqueTaskQueue('retry-unreachable'),
    // Nothing listens here; the query and the key are secrets, the host is not.
    OPENAI_BASE_URL: `http://127.0.0.1:${closedPort}/v1?token=query-secret-123`,
    OPENAI_API_KEY: 'sk-unreachable-key-456',
  };
  const workflowId = `retry-unreachable-${Date.now()}`;
  const run = spawnCli(['run', 'hello', '--no-stream', '--id', workflowId, '--workspace', bed.workspace], env, {
    stdin: 'ignore',
  });
  const runSaid = watchOutput(run);
  const runEnded = collect(run);
  try {
    await waitFor('the run to announce the second failed attempt', () => runSaid.stderr().includes('(attempt 2,'), {
      timeoutMs: 90_000,
    });
    expect(runSaid.stderr()).toContain(
      `model call failed (attempt 1, 127.0.0.1:${closedPort}: Connection error.); retrying in 1 s`,
    );

    // What the run fails with once its attempts are spent is the last attempt's failure: it names the host.
    const handle = bed.environment.client.workflow.getHandle(workflowId);
    const pending = (await handle.describe()).raw.pendingActivities ?? [];
    expect(pending[0]?.lastFailure?.message).toBe(`openai call to 127.0.0.1:${closedPort} failed: Connection error.`);

    // The retry notices are in history (the stream's signals), decoded: the host is there, the secrets are not.
    const history = withDecoded(historyToJSON(await handle.fetchHistory()));
    expect(history).toContain('"type":"model_retry"');
    expect(history).toContain(`127.0.0.1:${closedPort}`);
    expect(history).not.toContain('query-secret-123');
    expect(history).not.toContain('sk-unreachable-key-456');
  } finally {
    await bed.environment.client.workflow.getHandle(workflowId).terminate('the test is done with it');
    await runEnded;
  }
});
