import { parseArgs } from 'node:util';
import { InvalidInputError } from '../../client/start-agent';
import { compareReports } from '../../evals/report/compare-reports';
import type { EvalReport } from '../../core/eval-types';
import { evalWorkflowType } from '../../evals/workflow/definitions';
import { connect } from '../connect';
import { UsageError } from '../help';
import type { Output } from '../output';
import { deliverReport, reportOutputFlags, reportOutputOptions } from './eval-output';
import { evalStatus } from './eval-show';

/**
 * `agent eval compare A B`: two finished evals side by side (evals/report/compare-reports.ts), the cases both answered,
 * as the table, `--json`, `--report` and `--junit`, with the gates. Reads their results only: nothing is started.
 */
export async function evalCompareCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: reportOutputOptions });
  if (positionals.length !== 2) throw new UsageError('eval compare takes two eval ids: agent eval compare EVAL_A EVAL_B');
  const flags = reportOutputFlags(values);
  const session = await connect({ ensureWorker: false, log: output.info });
  try {
    const reports: EvalReport[] = [];
    for (const evalId of positionals) {
      const status = await evalStatus(session.client, evalId);
      if (!status) throw new InvalidInputError(`no eval with the id "${evalId}" on this server`);
      if (status.type !== evalWorkflowType) throw new InvalidInputError(`"${evalId}" is a ${status.type} run, not an eval`);
      if (status.running)
        throw new InvalidInputError(`eval "${evalId}" is still running: agent eval show ${evalId} follows it to its end`);
      if (status.name !== 'COMPLETED')
        throw new InvalidInputError(`eval "${evalId}" did not finish (${status.name.toLowerCase()}): it has no report`);
      reports.push(await session.client.workflow.getHandle<() => Promise<EvalReport>>(evalId).result());
    }
    const comparison = compareReports(reports[0], reports[1]);
    const { onlyInFirst, onlyInSecond } = comparison.compared!;
    output.info(
      `comparing ${comparison.cases.length} case(s) both evals answered` +
        (onlyInFirst.length + onlyInSecond.length > 0
          ? `; left out: ${onlyInFirst.length} only in ${positionals[0]}, ${onlyInSecond.length} only in ${positionals[1]}`
          : ''),
    );
    if (comparison.cases.length === 0)
      throw new InvalidInputError('the two evals answered no case in common: nothing to compare');
    return await deliverReport(comparison, flags, output);
  } finally {
    await session.close();
  }
}
