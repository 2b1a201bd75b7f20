import { parseArgs } from 'node:util';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { InvalidInputError } from '../../client/start-agent';
import { evalWorkflowType } from '../../evals/workflow/definitions';
import { connect } from '../connect';
import { exitCodes } from '../exit-codes';
import { UsageError } from '../help';
import type { Output } from '../output';
import { deliverReport, followEval, reportOutputFlags, reportOutputOptions } from './eval-output';

/**
 * `agent eval show EVAL_ID`: back to an eval started earlier, by anyone. A finished eval's table, `--json` and
 * `--report` again (the gates too); a running one is followed to its end first (a worker of this process runs it
 * when none polls). Nothing is started: the report is the eval's own result.
 */
export async function evalShowCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: reportOutputOptions });
  if (positionals.length !== 1) throw new UsageError('eval show takes one eval id: agent eval show EVAL_ID');
  const [evalId] = positionals;
  const flags = reportOutputFlags(values);
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    const status = await evalStatus(session.client, evalId);
    if (!status) throw new InvalidInputError(`no eval with the id "${evalId}" on this server`);
    if (status.type !== evalWorkflowType)
      throw new InvalidInputError(`"${evalId}" is a ${status.type} run, not an eval: agent show ${evalId}`);
    output.info(`eval ${evalId}: ${status.running ? 'running; following it to its end' : status.name.toLowerCase()}`);
    const report = await followEval(session, evalId, output);
    return report ? await deliverReport(report, flags, output) : exitCodes.failed;
  } finally {
    await session.close();
  }
}

/** What the server has under a workflow id (its latest run): its type and status, or undefined when nothing. */
export async function evalStatus(
  client: Client,
  workflowId: string,
): Promise<{ type: string; name: string; running: boolean } | undefined> {
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    return { type: description.type, name: description.status.name, running: description.status.name === 'RUNNING' };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/** The refusal of a second start under a used id: where the first eval's report is, never a new eval's bogus one. */
export function usedIdMessage(evalId: string, status: { type: string; name: string; running: boolean }): string {
  if (status.type !== evalWorkflowType)
    return `the id "${evalId}" is taken by a ${status.type} run; give the eval another --id (or none: a new one is made)`;
  return (
    `eval "${evalId}" ${status.running ? 'is running' : `already ran (${status.name.toLowerCase()})`}: ` +
    `agent eval show ${evalId} prints its table, --json and --report${status.running ? ' once it ends' : ''}; ` +
    'give another --id (or none) to start a new eval'
  );
}
