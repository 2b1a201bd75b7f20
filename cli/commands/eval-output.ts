import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { awaitResult } from '../../client/await-result';
import { failureMessage } from '../../client/failure-message';
import { followStream } from '../../client/follow-stream';
import { renderJunit } from '../../evals/report/junit';
import { renderReport } from '../../evals/report/render-report';
import type { EvalReport } from '../../core/eval-types';
import type { EvalEvent } from '../../core/stream-events';
import type { CliConnection } from '../connect';
import { evalTable } from '../eval-table';
import { exitCodes } from '../exit-codes';
import { UsageError } from '../help';
import { invocationDirectory, type Output } from '../output';
import { StreamRenderer } from '../stream-renderer';
import { parseDecimal } from './agent-flags';

/** What an eval's report becomes, the same flags for `agent eval`, `agent eval show` and `agent eval compare`. */
export const reportOutputOptions = {
  json: { type: 'boolean', default: false },
  report: { type: 'string' },
  junit: { type: 'string' },
  'fail-under': { type: 'string' },
  'fail-on-worse': { type: 'boolean', default: false },
} as const;

export interface ReportOutputFlags {
  json: boolean;
  report?: string;
  junit?: string;
  failUnder?: number;
  failOnWorse: boolean;
}

export function reportOutputFlags(values: {
  json?: boolean;
  report?: string;
  junit?: string;
  'fail-under'?: string;
  'fail-on-worse'?: boolean;
}): ReportOutputFlags {
  const failUnder = values['fail-under'] !== undefined ? parseDecimal('--fail-under', values['fail-under']) : undefined;
  if (failUnder !== undefined && (failUnder < 0 || failUnder > 1))
    throw new UsageError(`--fail-under is a score from 0 to 1, got ${failUnder}`);
  return {
    json: values.json ?? false,
    ...(values.report !== undefined && { report: values.report }),
    ...(values.junit !== undefined && { junit: values.junit }),
    ...(failUnder !== undefined && { failUnder }),
    failOnWorse: values['fail-on-worse'] ?? false,
  };
}

/**
 * Follows an eval to its end: each pair on stderr as it ends (from the first, also for an eval that ended already:
 * the story is told again), then its report; undefined when the eval failed (said on stderr).
 */
export async function followEval(
  session: CliConnection,
  workflowId: string,
  output: Output,
  firstExecutionRunId?: string,
): Promise<EvalReport | undefined> {
  const handle = session.client.workflow.getHandle<() => Promise<EvalReport>>(workflowId, undefined, {
    ...(firstExecutionRunId !== undefined && { firstExecutionRunId }),
  });
  const renderer = new StreamRenderer(
    { text: () => {}, line: output.info, progress: output.info },
    { text: false, marks: false },
  );
  const stop = new AbortController();
  const following = followStream<EvalEvent>(session.client, workflowId, {
    from: 0,
    onEvent: (item) => renderer.handleEval(item.data),
    onPause: output.info,
    signal: stop.signal,
    pollCooldownMs: 500,
  }).catch(() => {});
  try {
    return await awaitResult(
      () => handle.result(),
      (error) => output.info(`lost the Temporal server (${error.message}); the eval is durable, still waiting for it`),
    );
  } catch (error) {
    output.error(`eval failed: ${failureMessage(error)}`);
    return undefined;
  } finally {
    // The stream ends with the eval; the bound only keeps a lost server from holding the report. Its last events may
    // trail the result by seconds on a busy machine, and a pair-end line the table does not repeat would be lost.
    await Promise.race([following, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    stop.abort();
  }
}

/** The report as the flags ask (the HTML file, the JSON line or the table), then the CI gates' exit code. */
export async function deliverReport(report: EvalReport, flags: ReportOutputFlags, output: Output): Promise<number> {
  if (flags.report) {
    await writeFile(path.resolve(invocationDirectory(), flags.report), renderReport(report));
    output.info(`wrote the report to ${flags.report}`);
  }
  if (flags.junit) {
    await writeFile(path.resolve(invocationDirectory(), flags.junit), renderJunit(report));
    output.info(`wrote the JUnit report to ${flags.junit}`);
  }
  if (flags.json) output.result(JSON.stringify(report));
  else output.result(evalTable(report));
  return gates(report, flags, output);
}

/** The CI gates: every candidate's mean score at least --fail-under, and (--fail-on-worse) no case worse than recorded. */
function gates(report: EvalReport, flags: ReportOutputFlags, output: Output): number {
  const problems: string[] = [];
  for (const entry of report.summary) {
    if (entry.candidate === 'recorded') continue;
    if (flags.failUnder !== undefined && entry.score < flags.failUnder)
      problems.push(`${entry.candidate} scored ${entry.score.toFixed(2)}, under --fail-under ${flags.failUnder}`);
    if (flags.failOnWorse && entry.worse > 0)
      problems.push(`${entry.candidate} did worse than the recording on ${entry.worse} case(s)`);
  }
  for (const problem of problems) output.error(`gate failed: ${problem}`);
  return problems.length > 0 ? exitCodes.evalGateFailed : exitCodes.answered;
}
