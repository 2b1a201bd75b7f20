import { randomBytes } from 'node:crypto';
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { defaultBatchSettings, type BatchOption, type BatchSettings } from '../core/batch-settings';
import type { AgentInput } from '../core/resolve-input';
import type { EvalEvent } from '../core/stream-events';
import { InvalidInputError, resolveOrThrow } from '../client/start-agent';
import { followStream } from '../client/follow-stream';
import { clip } from '../workflows/summaries';
import type { Candidate, EvalCase, EvalReport, GraderSpec, UnrecordedToolPolicy } from '../core/eval-types';
import { evalWorkflowType, type CandidateRun, type EvalWorkflowInput } from './workflow/definitions';
import { recordedName } from './workflow/pairs';
import { graderSpecProblems } from './graders/check-grader-specs';

export type EvalWorkflow = (input: EvalWorkflowInput) => Promise<EvalReport>;
export type EvalHandle = WorkflowHandleWithFirstExecutionRunId<EvalWorkflow>;

/** What runEval asks: the cases, the candidates that answer them, how they are graded, and what the eval may spend. */
export interface EvalOptions {
  cases: EvalCase[];
  /** At least one; names are letters, digits, `_`, `-` and `.`, unique, and never `recorded` (the baseline's). */
  candidates: Candidate[];
  /** Graders of every case, besides each case's own. */
  graders?: GraderSpec[];
  /** The workspace the cases were recorded in: never written; each child run gets a scratch copy (or none: `tools`). */
  workspace: string;
  taskQueue: string;
  /** The eval's workflow id (default `eval-<time>-<random>`); its child runs are `<evalId>/<case>/<candidate>`. */
  evalId?: string;
  /** Child runs at once (default 4). */
  concurrency?: number;
  /**
   * Each candidate answers each case this many times (default 1), as runs of their own (`<evalId>/<case>/<candidate>/
   * repeat-N` past the first): the report gives each case's mean, spread and pass@k.
   */
  repeat?: number;
  /** US dollars the eval may spend (candidate runs and judges); without it, no limit. */
  budgetUsd?: number;
  /** Candidate and judge runs through the providers' batch APIs: `true` for the defaults, or some settings. */
  batch?: BatchOption;
  /** A tool call no recorded result answers: run against a scratch copy of the workspace (default), or refused. */
  tools?: UnrecordedToolPolicy;
  /** Each event of the eval's stream as it happens: pairs starting and ending (core/stream-events.ts). */
  onEvent?: (event: EvalEvent) => void;
  /** Continue as new after this many pairs in one run (a test and benchmark knob; default: Temporal's suggestion). */
  pairsPerRun?: number;
}

export const defaultEvalConcurrency = 4;
/** Runs of one candidate on one case at most: pass@k past this tells little more, and every run is paid for. */
export const maxRepeat = 100;

const candidateNamePattern = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Runs an eval to its end and returns its report: every case answered by every candidate as a durable child run,
 * graded, summed up per candidate (core/eval-types.ts's EvalReport). A worker with the AgentPlugin runs it.
 *
 *   const report = await runEval(client, { cases, candidates: [{ name: 'mini', model: 'openai:gpt-4o-mini' }],
 *     graders: [{ type: 'contains', value: 'refund' }], workspace, taskQueue });
 */
export async function runEval(client: Client, options: EvalOptions): Promise<EvalReport> {
  const handle = await startEval(client, options);
  if (!options.onEvent) return handle.result();
  const stop = new AbortController();
  const following = followStream<EvalEvent>(client, handle.workflowId, {
    from: 0,
    onEvent: (item) => options.onEvent!(item.data),
    signal: stop.signal,
  }).catch(() => {});
  try {
    const report = await handle.result();
    await following;
    return report;
  } finally {
    stop.abort();
  }
}

/**
 * Starts an eval and returns at once: follow it with followStream or `agent watch <evalId>`, await handle.result().
 * An id is used once: a second start under it, running or ended, is refused (WorkflowExecutionAlreadyStartedError),
 * since its pairs' runs exist already and would all be refused too; read the first eval's report instead.
 */
export async function startEval(client: Client, options: EvalOptions): Promise<EvalHandle> {
  const input = evalInput(options);
  const evalId = options.evalId ?? newEvalId();
  return client.workflow.start<EvalWorkflow>(evalWorkflowType, {
    taskQueue: options.taskQueue,
    workflowId: evalId,
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
    staticSummary: clip(
      `eval: ${input.cases.length} case(s) × ${input.candidates.map((run) => run.candidate.name).join(', ')}`,
      200,
    ),
  });
}

/** The eval workflow's input, checked and with every default filled in: a mistake fails here, before anything starts. */
export function evalInput(options: EvalOptions): EvalWorkflowInput {
  const problem = optionsProblem(options);
  if (problem) throw new InvalidInputError(`invalid eval: ${problem}`);
  return {
    cases: options.cases,
    candidates: options.candidates.map((candidate) => candidateRun(candidate, options.workspace)),
    graders: options.graders ?? [],
    concurrency: options.concurrency ?? defaultEvalConcurrency,
    ...(options.repeat !== undefined && options.repeat > 1 && { repeat: options.repeat }),
    ...(options.budgetUsd !== undefined && { budgetUsd: options.budgetUsd }),
    ...(batchSettings(options.batch) && { batch: batchSettings(options.batch) }),
    unrecordedTools: options.tools ?? 'scratch',
    workspace: options.workspace,
    startedAt: new Date().toISOString(),
    ...(options.pairsPerRun !== undefined && { pairsPerRun: options.pairsPerRun }),
  };
}

/**
 * A candidate's overrides as a run's input, before defaults: what runEval resolves and `agent eval` checks as
 * `agent run` checks a run. The prompt is a placeholder; each case brings its own.
 */
export function candidateAgentInput(candidate: Candidate, workspace: string): AgentInput {
  return {
    prompt: 'eval',
    ...(candidate.agent !== undefined && { agent: candidate.agent }),
    ...(candidate.model !== undefined && { model: candidate.model }),
    ...(candidate.instructions !== undefined && { systemPrompt: candidate.instructions }),
    ...(candidate.tools !== undefined && { tools: candidate.tools }),
    ...(candidate.modelSettings !== undefined && { modelSettings: candidate.modelSettings }),
    workspace,
  };
}

/** The candidate's overrides resolved as a run's input (every default filled in), checked like `agent run`'s. */
function candidateRun(candidate: Candidate, workspace: string): CandidateRun {
  try {
    const { prompt: _prompt, ...input } = resolveOrThrow(candidateAgentInput(candidate, workspace));
    return { candidate, input };
  } catch (error) {
    throw new InvalidInputError(
      `invalid eval: candidate "${candidate.name}": ${(error as Error).message.replace(/^invalid input: /, '')}`,
    );
  }
}

function optionsProblem(options: EvalOptions): string | undefined {
  if (!Array.isArray(options.cases) || options.cases.length === 0) return 'no cases';
  if (!Array.isArray(options.candidates) || options.candidates.length === 0) return 'no candidates';
  const names = options.candidates.map((candidate) => candidate.name);
  const badName = names.find((name) => typeof name !== 'string' || !candidateNamePattern.test(name));
  if (badName !== undefined) return `candidate name ${JSON.stringify(badName)}: use letters, digits, _, - and . (at most 64)`;
  if (names.includes(recordedName)) return `"${recordedName}" is the recorded baseline's name; name the candidate otherwise`;
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) return `two candidates are named "${twice}"`;
  const ids = options.cases.map((evalCase) => evalCase.id);
  const sameId = ids.find((id, index) => ids.indexOf(id) !== index);
  if (sameId !== undefined) return `two cases have the id "${sameId}"`;
  if (options.concurrency !== undefined && (!Number.isInteger(options.concurrency) || options.concurrency < 1))
    return `concurrency must be a whole number of at least 1, got ${options.concurrency}`;
  if (options.repeat !== undefined && (!Number.isInteger(options.repeat) || options.repeat < 1 || options.repeat > maxRepeat))
    return `repeat must be a whole number from 1 to ${maxRepeat}, got ${options.repeat}`;
  if (options.budgetUsd !== undefined && !(options.budgetUsd > 0))
    return `the budget must be more than $0, got ${options.budgetUsd}`;
  // Graders come from datasets and command lines: a bad one is caught here, not mid-eval.
  const graderProblems = [
    ...graderSpecProblems(options.graders ?? [], 'graders'),
    ...options.cases.flatMap((evalCase) =>
      evalCase.graders ? graderSpecProblems(evalCase.graders, `case ${evalCase.id} graders`) : [],
    ),
  ];
  if (graderProblems.length > 0) return graderProblems.join('; ');
  if (options.tools !== undefined && options.tools !== 'scratch' && options.tools !== 'refuse')
    return `tools must be "scratch" or "refuse", got ${JSON.stringify(options.tools)}`;
  return undefined;
}

function batchSettings(option: BatchOption | undefined): BatchSettings | undefined {
  if (!option) return undefined;
  return option === true ? defaultBatchSettings : { ...defaultBatchSettings, ...option };
}

export function newEvalId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `eval-${stamp}-${randomBytes(3).toString('hex')}`;
}
