import { parseArgs } from 'node:util';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { approveUpdate, denyUpdate, interruptUpdate } from '../../workflows/definitions';
import { connect, ensureWorkerServes } from '../connect';
import { UsageError } from '../help';
import type { Output } from '../output';

/** `agent approve <id> [--call CALL_ID]`: approves the tool call named (or every one waiting) so it runs. */
export function approveCommand(argv: string[], output: Output): Promise<number> {
  return decide(argv, output, 'approve');
}

/** `agent deny <id> [--call CALL_ID] [--reason TEXT]`: the call is not run; the model is told it was denied, and why. */
export function denyCommand(argv: string[], output: Output): Promise<number> {
  return decide(argv, output, 'deny');
}

async function decide(argv: string[], output: Output, verb: 'approve' | 'deny'): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      call: { type: 'string' },
      ...(verb === 'deny' && { reason: { type: 'string' } }),
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError(`${verb} takes one workflow id (and --call CALL_ID for one call)`);
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    await ensureWorkerServes(session, positionals[0]);
    const handle = session.client.workflow.getHandle(positionals[0]);
    const call = values.call as string | undefined;
    const reason = values.reason as string | undefined;
    const decided = await (
      verb === 'approve'
        ? handle.executeUpdate(approveUpdate, { args: [{ ...(call && { call }) }] })
        : handle.executeUpdate(denyUpdate, { args: [{ ...(call && { call }), ...(reason && { reason }) }] })
    ).catch((error: unknown) => {
      output.error(`${verb} refused: ${refusal(error)}`);
      return undefined;
    });
    if (!decided) return 1;
    output.info(`${verb === 'approve' ? 'approved' : 'denied'}: ${decided.join(', ')}`);
    if (values.json)
      output.result(JSON.stringify({ workflowId: positionals[0], [verb === 'approve' ? 'approved' : 'denied']: decided }));
    return 0;
  } finally {
    await session.close();
  }
}

/** `agent interrupt <id>`: ends the current turn at once; the session goes on and waits for the next message. */
export async function interruptCommand(argv: string[], output: Output): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('interrupt takes one workflow id');
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    await ensureWorkerServes(session, positionals[0]);
    const done = await session.client.workflow
      .getHandle(positionals[0])
      .executeUpdate(interruptUpdate)
      .then(
        () => true,
        (error: unknown) => {
          output.error(`interrupt refused: ${refusal(error)}`);
          return false;
        },
      );
    if (done) output.info(`interrupted the current turn of ${positionals[0]}`);
    return done ? 0 : 1;
  } finally {
    await session.close();
  }
}

function refusal(error: unknown): string {
  if (error instanceof WorkflowUpdateFailedError) return error.cause?.message ?? error.message;
  return error instanceof Error ? error.message : String(error);
}
