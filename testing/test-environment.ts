import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTemporalCli } from '../cli/dev-server/find-temporal-cli';
import { agentDataConverter } from '../storage/data-converter';
import { findCachedTestServer } from './test-server';

/**
 * Where the agents under test run:
 * - `time-skipping` (default): Temporal's test server, which skips time whenever the test waits for a result, so an
 *   approval timeout or a session's idle timeout passes at once. It is a Java program: `testServerPath`, else
 *   TEMPORAL_TEST_SERVER_PATH, else the one `npx durable-agent setup-test-server` cached, else the SDK's download.
 * - `local`: the Temporal CLI's dev server (real time): the `temporal` found on TEMPORAL_CLI_PATH, PATH or
 *   durable-agent's cache, else the SDK's download.
 * - `{ address, namespace }`: a server that is already running (real time), e.g. the one your CI starts.
 */
export type TestServer = 'time-skipping' | 'local' | { address: string; namespace?: string };

export async function startTestEnvironment(
  server: TestServer,
  options: { testServerPath?: string; env: NodeJS.ProcessEnv },
): Promise<TestWorkflowEnvironment> {
  // The client stores large payloads and encrypts them as the worker does (AGENT_PAYLOAD_DIR, AGENT_ENCRYPTION_KEYS...).
  const client = { dataConverter: agentDataConverter(options.env) };
  if (server === 'time-skipping') {
    // The one `npx durable-agent setup-test-server` cached, before the SDK's download (which needs Temporal's site).
    const path = options.testServerPath ?? options.env.TEMPORAL_TEST_SERVER_PATH ?? (await findCachedTestServer(options.env));
    return startWithRetries(() =>
      TestWorkflowEnvironment.createTimeSkipping({
        client,
        ...(path && { server: { executable: { type: 'existing-path', path } } }),
      }),
    ).catch((error: Error) => {
      if (path) throw error;
      throw new Error(
        `${error.message}\nThe SDK downloads Temporal's time-skipping test server on first use. Without that download, ` +
          'fetch and cache one once with `npx durable-agent setup-test-server` (Java and Maven), or set ' +
          "TEMPORAL_TEST_SERVER_PATH to one (node_modules/durable-agent/docs/testing.md: 'Without internet'), or use server: 'local' or { address }.",
        { cause: error },
      );
    });
  }
  if (server === 'local') {
    const cli = await findTemporalCli(options.env);
    return TestWorkflowEnvironment.createLocal({
      client,
      ...(cli && { server: { executable: { type: 'existing-path', path: cli } } }),
    });
  }
  if (typeof server?.address !== 'string')
    throw new TypeError(`server must be 'time-skipping', 'local' or { address, namespace }, not ${JSON.stringify(server)}`);
  return TestWorkflowEnvironment.createFromExistingServer({ address: server.address, namespace: server.namespace, client });
}

/**
 * The SDK gives a test server 5 seconds to listen and then gives up; the Java test server's start-up can take longer
 * on a busy CI machine. A start that only missed that window is tried again, twice: a second JVM start finds its
 * classes in the page cache.
 */
async function startWithRetries(start: () => Promise<TestWorkflowEnvironment>): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt === 3 || !/did not start within/.test((error as Error).message)) throw error;
    }
  }
}
