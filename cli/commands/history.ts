// First: history files need one protobufjs under Temporal's packages; two fail here with the fix (install/).
import '../../install/check-one-protobufjs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { connect } from '../connect';
import { UsageError } from '../help';
import { invocationDirectory, type Output } from '../output';

/** `agent history <id> --out FILE`: the event history as JSON, the format Worker.runReplayHistories reads back. */
export async function historyCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { out: { type: 'string' } } });
  if (positionals.length !== 1 || !values.out) throw new UsageError('history takes one workflow id and --out FILE');
  const session = await connect({ ensureWorker: false, log: output.info });
  try {
    const history = await session.client.workflow.getHandle(positionals[0]).fetchHistory();
    const file = path.resolve(invocationDirectory(), values.out);
    await writeFile(file, historyToJSON(history));
    output.info(`saved ${history.events?.length ?? 0} events to ${file}`);
    return 0;
  } finally {
    await session.close();
  }
}
