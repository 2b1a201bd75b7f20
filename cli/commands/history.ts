// First: history files need one protobufjs under Temporal's packages; two fail here with the fix (install/).
import '../../install/check-one-protobufjs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fetchHistoryChain, historyChainToJSON } from '../../client/history-chain';
import { connect } from '../connect';
import { UsageError } from '../help';
import { invocationDirectory, type Output } from '../output';

/**
 * `agent history <id> --out FILE`: every run of the chain the workflow's latest run belongs to (continue-as-new
 * makes one conversation several runs), oldest first, as a chain file (client/history-chain.ts) that `agent replay
 * --file` reads back whole.
 */
export async function historyCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { out: { type: 'string' } } });
  if (positionals.length !== 1 || !values.out) throw new UsageError('history takes one workflow id and --out FILE');
  const session = await connect({ ensureWorker: false, log: output.info });
  try {
    const chain = await fetchHistoryChain(session.client, positionals[0]);
    const file = path.resolve(invocationDirectory(), values.out);
    await writeFile(file, historyChainToJSON(positionals[0], chain));
    const events = chain.reduce((sum, history) => sum + (history.events?.length ?? 0), 0);
    output.info(`saved ${chain.length} run${chain.length === 1 ? '' : 's'} (${events} events) to ${file}`);
    return 0;
  } finally {
    await session.close();
  }
}
