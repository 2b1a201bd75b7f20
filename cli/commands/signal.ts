import { parseArgs } from 'node:util';
import { EventRefusedError, sendEvent } from '../../time/send-event';
import { connect, ensureWorkerServes } from '../connect';
import { UsageError } from '../help';
import type { Output } from '../output';

/**
 * `agent signal <workflow-id> <event> [--json PAYLOAD] [--id ID]`: delivers an event to the run's `wait_for_event`
 * call on that name (docs/time.md); refused, with the run's reason, when nothing there waits for it.
 */
export async function signalCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'string' }, id: { type: 'string' } },
  });
  if (positionals.length !== 2) throw new UsageError('signal takes a workflow id and an event name (and --json PAYLOAD)');
  const [workflowId, event] = positionals;
  let payload: unknown;
  if (values.json !== undefined) {
    try {
      payload = JSON.parse(values.json);
    } catch (error) {
      throw new UsageError(`--json must be JSON: ${(error as Error).message}`);
    }
  }
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    await ensureWorkerServes(session, workflowId);
    const handle = session.client.workflow.getHandle(workflowId);
    const delivered = await sendEvent(handle, event, payload, { ...(values.id !== undefined && { id: values.id }) }).catch(
      (error: unknown) => {
        if (!(error instanceof EventRefusedError)) throw error;
        output.error(`signal refused: ${error.message}`);
        return undefined;
      },
    );
    if (!delivered) return 1;
    output.info(`delivered ${event} to call ${delivered.callId}`);
    output.result(JSON.stringify({ workflowId, ...delivered }));
    return 0;
  } finally {
    await session.close();
  }
}
