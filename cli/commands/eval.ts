import path from 'node:path';
import { parseArgs } from 'node:util';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { InvalidInputError } from '../../client/start-agent';
import { candidateAgentInput, evalInput, newEvalId, startEval, type EvalOptions } from '../../evals/run-eval';
import type { EvalCase, GraderSpec } from '../../core/eval-types';
import { evalWorkflowType } from '../../evals/workflow/definitions';
import { assertStartable } from '../check-run';
import { connect } from '../connect';
import { exitCodes } from '../exit-codes';
import { UsageError } from '../help';
import { invocationDirectory, type Output } from '../output';
import { runLink } from '../web-ui';
import { loadCases } from './eval-case-sources';
import { parseCandidate, parseGrader, readConfigFile } from './eval-flags';
import { assertCandidateTools, assertGradersKnown } from './eval-checks';
import { deliverReport, followEval, reportOutputFlags, reportOutputOptions } from './eval-output';
import { evalCompareCommand } from './eval-compare';
import { evalShowCommand, evalStatus, usedIdMessage } from './eval-show';
import { parseDecimal, parseInteger } from './agent-flags';

/**
 * `agent eval`: replays recorded conversations (or a dataset) onto candidates, durably, and scores them. Cases from
 * --query, --runs, --history, --dataset or --cases; candidates from --candidate or --config; graders from --grader,
 * --judge or --config. Prints each pair as it ends (stderr), then the table (stdout), or the report as one JSON line
 * (--json); writes the HTML report (--report). Exit 0, or 4 when a gate fails (--fail-under, --fail-on-worse).
 * `agent eval show EVAL_ID` goes back to an eval (./eval-show.ts); an id in use never starts a second one.
 * `agent eval compare A B` puts two finished evals side by side (./eval-compare.ts).
 */
export async function evalCommand(argv: string[], output: Output): Promise<number> {
  if (argv[0] === 'show') return evalShowCommand(argv.slice(1), output);
  if (argv[0] === 'compare') return evalCompareCommand(argv.slice(1), output);
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
      repeat: { type: 'string' },
      'budget-usd': { type: 'string' },
      batch: { type: 'boolean' },
      tools: { type: 'string' },
      id: { type: 'string' },
      ...reportOutputOptions,
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
  const outputFlags = reportOutputFlags(values);
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
  assertGradersKnown(graders);
  // Every candidate is checked as `agent run` checks a run (agent, model, provider rules, tools): exit 2 before anything starts.
  for (const candidate of candidates) {
    await assertStartable(candidateAgentInput(candidate, workspace)).catch((error: Error) => {
      throw Object.assign(error, { message: `candidate "${candidate.name}": ${error.message}` });
    });
  }

  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    const evalId = values.id ?? newEvalId();
    // An id in use is the earlier eval's: its report is one command away, and a second start would only fail its pairs.
    const used = values.id !== undefined ? await evalStatus(session.client, evalId) : undefined;
    if (used) throw new InvalidInputError(usedIdMessage(evalId, used));
    const cases: EvalCase[] = await loadCases(session.client, sources);
    if (cases.length === 0) throw new UsageError('no cases: the sources given hold no user message to answer');
    assertGradersKnown([], cases);
    await assertCandidateTools(candidates, cases, workspace);
    const options: EvalOptions = {
      cases,
      candidates,
      graders,
      workspace,
      taskQueue: session.taskQueue,
      evalId,
      ...((values['concurrency'] ?? config.concurrency) !== undefined && {
        concurrency: values.concurrency !== undefined ? parseInteger('--concurrency', values.concurrency) : config.concurrency,
      }),
      ...((values.repeat ?? config.repeat) !== undefined && {
        repeat: values.repeat !== undefined ? parseInteger('--repeat', values.repeat) : config.repeat,
      }),
      ...(budget !== undefined && { budgetUsd: budget }),
      ...((values.batch ?? config.batch) && { batch: true }),
      ...(tools !== undefined && { tools }),
    };
    evalInput(options); // a mistake in the options (names, ids, budget) is exit 2, before anything starts
    const handle = await startEval(session.client, options).catch(async (error: unknown) => {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      const status = await evalStatus(session.client, evalId);
      throw new InvalidInputError(usedIdMessage(evalId, status ?? { type: evalWorkflowType, name: 'COMPLETED', running: false }));
    });
    output.info(
      `started eval ${handle.workflowId}: ${cases.length} case(s) × ${candidates.map((candidate) => candidate.name).join(', ')}`,
    );
    const link = runLink(session.uiBase, session.namespace, handle.workflowId, handle.firstExecutionRunId);
    if (link) output.info(`Web UI: ${link}`);
    const report = await followEval(session, handle.workflowId, output, handle.firstExecutionRunId);
    return report ? await deliverReport(report, outputFlags, output) : exitCodes.failed;
  } finally {
    await session.close();
  }
}
