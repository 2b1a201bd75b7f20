import { parseArgs } from 'node:util';
import { UsageError } from '../help';
import type { Output } from '../output';

/**
 * `durable-agent worker`: the worker of `npm run worker` (worker/main.ts), for an installed package, where the
 * repository's script is not there. Its settings are the environment's, as the worker's are (docs/production.md).
 */
export async function workerCommand(argv: string[], output: Output): Promise<number> {
  // No flags: an unknown one is refused as every command refuses it (its settings come from the environment).
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  if (positionals.length > 0) throw new UsageError('worker takes no arguments: its settings come from the environment');
  const { runWorker } = await import('../../worker/main');
  try {
    await runWorker();
    return 0;
  } catch (error) {
    // The words `npm run worker` prints, which the docs quote.
    output.error(`worker failed: ${(error as Error).message}`);
    return 1;
  }
}
