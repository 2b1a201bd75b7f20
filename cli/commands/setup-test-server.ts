import { parseArgs } from 'node:util';
import { ensureTestServer } from '../../testing/test-server';
import { UsageError } from '../help';
import type { Output } from '../output';

/**
 * `setup-test-server`: fetches Temporal's time-skipping test server from Maven Central into durable-agent's cache
 * (once; Java and Maven needed), where durable-agent/testing finds it, so that a project's tests run offline
 * without the SDK's download from Temporal's site. Prints the launcher's path; TEMPORAL_TEST_SERVER_PATH wins.
 */
export async function setupTestServerCommand(argv: string[], output: Output): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  if (positionals.length > 0) throw new UsageError(`setup-test-server takes no arguments (got "${positionals[0]}")`);
  output.result(await ensureTestServer(output.info));
  return 0;
}
