import { parseArgs } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentResult } from '../../core/result';
import { isEvalEvent, type StreamEvent } from '../../core/stream-events';
import type { EvalReport } from '../../core/eval-types';
import { connect } from '../connect';
import { statusExitCodes } from '../exit-codes';
import { statusText } from '../event-lines';
import { followStream } from '../../client/follow-stream';
import { StreamRenderer } from '../stream-renderer';
import { UsageError } from '../help';
import { parseInteger } from './agent-flags';
import { streamedText, type Output } from '../output';
import { failureMessage } from '../../client/failure-message';

/**
 * `agent watch <id> [--from OFFSET] [--json]`: follows a run's stream from
 * anywhere, printing the text as it is written and a line per tool call (and,
 * on stderr, a line per model call with its usage), until
 * the run ends; then exits like `agent run` would for its status (0 answered or
 * ended, 3 ended without a full answer, 1 failed, cancelled or terminated).
 * With --json, one JSON object per line: each event with its `offset`, then
 * `{"type":"run_end","status",…}`. A watcher that loses the server picks up
 * where it stopped: `--from` the offset after the last one it printed.
 */
export async function watchCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { from: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) throw new UsageError('watch takes one workflow id');
  const from = values.from !== undefined ? parseInteger('--from', values.from) : 0;
  if (from < 0) throw new UsageError(`--from must be an offset of 0 or more, got ${from}`);
  const [workflowId] = positionals;
  // Polls are updates: a worker must be there to answer them.
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    const handle = session.client.workflow.getHandle(workflowId);
    await handle.describe().catch((error: unknown) => {
      throw error instanceof WorkflowNotFoundError ? new UsageError(`no run with workflow id "${workflowId}"`) : error;
    });
    // The story on stdout as it happens (the text, turn marks, tool calls, approvals); each model call's usage on stderr.
    const write = streamedText(output);
    const printer = new StreamRenderer(
      { text: write, line: (line) => write(`${line}\n`), progress: output.info },
      { text: true, marks: true },
    );
    output.info(`watching ${workflowId} from offset ${from}`);
    // Any id: an agent run's stream (AgentEvent) or an eval's (EvalEvent), so the whole union.
    await followStream<StreamEvent>(session.client, workflowId, {
      from,
      onEvent: ({ offset, data: event }) => {
        if (values.json) output.result(JSON.stringify({ offset, ...event }));
        else if (isEvalEvent(event)) printer.handleEval(event);
        else printer.handle(event);
      },
      onPause: (reason) => output.info(reason),
    });
    return await reportEnd(handle.result() as Promise<AgentResult | EvalReport>, {
      json: values.json,
      workflowId,
      printer,
      output,
    });
  } finally {
    await session.close();
  }
}

/** The run ended: the answer if the stream ended before showing it, the status, and an exit code like `agent run`'s. */
async function reportEnd(
  result: Promise<AgentResult | EvalReport>,
  context: { json: boolean; workflowId: string; printer: StreamRenderer; output: Output },
): Promise<number> {
  const { json, workflowId, printer, output } = context;
  let outcome: AgentResult | EvalReport;
  try {
    outcome = await result;
  } catch (error) {
    const message = failureMessage(error);
    output.error(`run failed: ${message}`);
    if (json) output.result(JSON.stringify({ type: 'run_end', workflowId, status: 'failed', error: message }));
    return 1;
  }
  // An eval (agent eval, runEval) ends with its report, not an agent's result: its story was the stream's.
  if (isEvalReport(outcome)) {
    if (json) output.result(JSON.stringify({ type: 'run_end', workflowId, status: 'completed' }));
    else output.info(`eval ${workflowId} ended: ${outcome.cases.length} case(s)`);
    return 0;
  }
  if (json) {
    output.result(
      JSON.stringify({
        type: 'run_end',
        workflowId,
        status: outcome.status,
        answer: outcome.answer,
        ...(outcome.guardrail && { guardrail: outcome.guardrail }),
      }),
    );
  } else {
    // The run may end before the watcher's last poll: its answer is then shown from the result, once.
    if (printer.lastTurnEnded < outcome.turns && outcome.turns > 0) printer.complete(outcome.answer, printer.turnEnds + 1);
    output.info(`run ${workflowId} ended: ${statusText(outcome.status, outcome.guardrail)}`);
  }
  return statusExitCodes[outcome.status];
}

function isEvalReport(result: unknown): result is EvalReport {
  return typeof (result as EvalReport | undefined)?.evalId === 'string' && Array.isArray((result as EvalReport).cases);
}
