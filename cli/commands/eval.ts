import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { awaitResult } from '../../client/await-result';
import { followStream } from '../../client/follow-stream';
import { failureMessage } from '../../client/failure-message';
import type { EvalEvent } from '../../core/stream-events';
import { candidateAgentInput, evalInput, newEvalId, startEval, type EvalOptions } from '../../evals/run-eval';
import type { EvalCase, EvalReport, GraderSpec } from '../../core/eval-types';
import { assertStartable } from '../check-run';
import { connect } from '../connect';
import { evalTable } from '../eval-table';
import { exitCodes } from '../exit-codes';
import { UsageError } from '../help';
import { invocationDirectory, type Output } from '../output';
import { StreamRenderer } from '../stream-renderer';
import { runLink } from '../web-ui';
import { loadCases } from './eval-case-sources';
import { parseCandidate, parseGrader, readConfigFile } from './eval-flags';
import { parseDecimal, parseInteger } from './agent-flags';
import { renderReport } from '../../evals/report/render-report';

/**
 * `agent eval`: replays recorded conversations (or a dataset) onto candidates, durably, and scores them. Cases from
 * --query, --runs, --history, --dataset or --cases; candidates from --candidate or --config; graders from --grader,
 * --judge or --config. Prints each pair as it ends (stderr), then the table (stdout), or the report as one JSON line
 * (--json); writes the HTML report (--report). Exit 0, or 4 when a gate fails (--fail-under, --fail-on-worse).
 */
export async function evalCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: false,
    options: {
      query: { type: 'string' },
      runs: { type: 'string' },
      history: { type: 'string', multiple: true },
      dataset: { type: 'string', multiple: true },
      cases: { type: 'string' },
      'every-message': { type: 'boolean', default: false },
      limit: { type: 'string' },
      candidate: { type: 'string', multiple: true },
      agent: { type: 'string' },
      config: { type: 'string' },
      grader: { type: 'string', multiple: true },
      judge: { type: 'string', multiple: true },
      'judge-model': { type: 'string' },
      workspace: { type: 'string' },
      concurrency: { type: 'string' },
      'budget-usd': { type: 'string' },
      batch: { type: 'boolean' },
      tools: { type: 'string' },
      id: { type: 'string' },
      json: { type: 'boolean', default: false },
      report: { type: 'string' },
      'fail-under': { type: 'string' },
      'fail-on-worse': { type: 'boolean', default: false },
    },
  });
  void positionals;
  const config = values.config ? readConfigFile(values.config) : {};
  const candidates = [
    ...(config.candidates ?? []).map((candidate) => ({
      ...(values.agent !== undefined && { agent: values.agent }),
      ...candidate,
    })),
    ...(values.candidate ?? []).map((text) => parseCandidate(text, { agent: values.agent })),
  ];
  if (candidates.length === 0) throw new UsageError('eval needs a candidate: --candidate NAME[: key=value; …] or --config FILE');
  if (values.judge && !values['judge-model'])
    throw new UsageError("--judge needs --judge-model provider:model (the judge's model)");
  const graders: GraderSpec[] = [
    ...(config.graders ?? []),
    ...(values.grader ?? []).map(parseGrader),
    ...(values.judge ?? []).map((rubric) => ({ type: 'judge' as const, rubric, model: values['judge-model']! })),
  ];
  const failUnder = values['fail-under'] !== undefined ? parseDecimal('--fail-under', values['fail-under']) : undefined;
  if (failUnder !== undefined && (failUnder < 0 || failUnder > 1))
    throw new UsageError(`--fail-under is a score from 0 to 1, got ${failUnder}`);
  const tools = values.tools ?? config.tools;
  if (tools !== undefined && tools !== 'scratch' && tools !== 'refuse')
    throw new UsageError(`--tools is scratch (the default: a copy of the workspace per run) or refuse, got "${tools}"`);
  const workspace = path.resolve(invocationDirectory(), values.workspace ?? '.');
  const budget = values['budget-usd'] !== undefined ? parseDecimal('--budget-usd', values['budget-usd']) : config.budgetUsd;
  const sources = {
    query: values.query,
    runs: values.runs
      ? values.runs
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean)
      : undefined,
    history: values.history,
    dataset: values.dataset,
    cases: values.cases,
    everyMessage: values['every-message'],
    limit: values.limit !== undefined ? parseInteger('--limit', values.limit) : undefined,
  };
  const named = [sources.query, sources.runs, sources.history, sources.dataset, sources.cases].filter(
    (source) => source !== undefined,
  );
  if (named.length === 0) throw new UsageError('eval needs cases: --query, --runs, --history, --dataset or --cases');
  // Every candidate is checked as `agent run` checks a run (agent, model, provider rules, tools): exit 2 before anything starts.
  for (const candidate of candidates) {
    await assertStartable(candidateAgentInput(candidate, workspace)).catch((error: Error) => {
      throw Object.assign(error, { message: `candidate "${candidate.name}": ${error.message}` });
    });
  }

  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    const cases: EvalCase[] = await loadCases(session.client, sources);
    if (cases.length === 0) throw new UsageError('no cases: the sources given hold no user message to answer');
    const options: EvalOptions = {
      cases,
      candidates,
      graders,
      workspace,
      taskQueue: session.taskQueue,
      evalId: values.id ?? newEvalId(),
      ...((values['concurrency'] ?? config.concurrency) !== undefined && {
        concurrency: values.concurrency !== undefined ? parseInteger('--concurrency', values.concurrency) : config.concurrency,
      }),
      ...(budget !== undefined && { budgetUsd: budget }),
      ...((values.batch ?? config.batch) && { batch: true }),
      ...(tools !== undefined && { tools }),
    };
    evalInput(options); // a mistake in the options (names, ids, budget) is exit 2, before anything starts
    const handle = await startEval(session.client, options);
    output.info(
      `started eval ${handle.workflowId}: ${cases.length} case(s) × ${candidates.map((candidate) => candidate.name).join(', ')}`,
    );
    const link = runLink(session.uiBase, session.namespace, handle.workflowId, handle.firstExecutionRunId);
    if (link) output.info(`Web UI: ${link}`);
    const renderer = new StreamRenderer(
      { text: () => {}, line: output.info, progress: output.info },
      { text: false, marks: false },
    );
    const stop = new AbortController();
    const following = followStream<EvalEvent>(session.client, handle.workflowId, {
      from: 0,
      onEvent: (item) => renderer.handleEval(item.data),
      onPause: output.info,
      signal: stop.signal,
      pollCooldownMs: 500,
    }).catch(() => {});
    let report: EvalReport;
    try {
      report = await awaitResult(
        () => handle.result(),
        (error) => output.info(`lost the Temporal server (${error.message}); the eval is durable, still waiting for it`),
      );
    } catch (error) {
      output.error(`eval failed: ${failureMessage(error)}`);
      return exitCodes.failed;
    } finally {
      await Promise.race([following, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      stop.abort();
    }
    if (values.report) {
      await writeFile(path.resolve(invocationDirectory(), values.report), renderReport(report));
      output.info(`wrote the report to ${values.report}`);
    }
    if (values.json) output.result(JSON.stringify(report));
    else output.result(evalTable(report));
    return gates(report, { failUnder, failOnWorse: values['fail-on-worse'] }, output);
  } finally {
    await session.close();
  }
}

/** The CI gates: every candidate's mean score at least --fail-under, and (--fail-on-worse) no case worse than recorded. */
function gates(report: EvalReport, options: { failUnder?: number; failOnWorse: boolean }, output: Output): number {
  const problems: string[] = [];
  for (const entry of report.summary) {
    if (entry.candidate === 'recorded') continue;
    if (options.failUnder !== undefined && entry.score < options.failUnder)
      problems.push(`${entry.candidate} scored ${entry.score.toFixed(2)}, under --fail-under ${options.failUnder}`);
    if (options.failOnWorse && entry.worse > 0)
      problems.push(`${entry.candidate} did worse than the recording on ${entry.worse} case(s)`);
  }
  for (const problem of problems) output.error(`gate failed: ${problem}`);
  return problems.length > 0 ? exitCodes.evalGateFailed : exitCodes.answered;
}
