import { parseArgs } from 'node:util';
import { connect, noWorkerAnswered, withWorkerFallback } from '../connect';
import { UsageError } from '../help';
import type { Output } from '../output';

/** `agent cancel <id>`: requests cancellation; in-flight activities learn of it through their heartbeats. */
export async function cancelCommand(argv: string[], output: Output): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('cancel takes one workflow id');
  const session = await connect({ ensureWorker: false, log: output.info });
  try {
    const handle = session.client.workflow.getHandle(positionals[0]);
    await handle.cancel();
    // The workflow acts on the cancellation in a workflow task: a worker must run it.
    await withWorkerFallback(session, () =>
      handle.result().catch((error: unknown) => (noWorkerAnswered(error) ? Promise.reject(error) : undefined)),
    );
    const { status } = await handle.describe();
    output.info(`${positionals[0]}: ${status.name}`);
    return status.name === 'CANCELLED' ? 0 : 1;
  } finally {
    await session.close();
  }
}
