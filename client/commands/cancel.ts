import { parseArgs } from 'node:util';
import { connect } from '../connect';
import { UsageError } from '../usage';
import type { Output } from './output';

/** `agent cancel <id>`: requests cancellation; in-flight activities learn of it through their heartbeats. */
export async function cancelCommand(argv: string[], output: Output): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('cancel takes one workflow id');
  // A worker must be running for the workflow to act on the cancellation.
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    const handle = session.client.workflow.getHandle(positionals[0]);
    await handle.cancel();
    await handle.result().catch(() => undefined);
    const { status } = await handle.describe();
    output.info(`${positionals[0]}: ${status.name}`);
    return status.name === 'CANCELLED' ? 0 : 1;
  } finally {
    await session.close();
  }
}
