import type { ModelSettings } from './agent-spec';
import type { Message } from './messages';
import type { AgentStatus } from './result';
import type { Usage } from './usage';

/**
 * The vocabulary of `agent eval` and runEval(), shared by its three parts:
 * - evals/cases/: where cases come from (recorded runs, history files, a JSONL dataset);
 * - evals/graders/: how an outcome is scored (built-in graders, the LLM judge, graders of the user's own);
 * - evals/workflow/ and evals/run-eval.ts: the durable eval run that answers each case with each candidate.
 * Everything here is JSON: it travels in workflow inputs, results and the report. It lives in core/ because the layers
 * under evals/ name it too: a run's input and result carry fixtures and observed calls, and a grader registered on the
 * registry (agents/define-grader.ts) is given a case and an outcome.
 */

/** Where a case came from, so a report can link back to it. */
export type CaseSource =
  | {
      kind: 'run';
      workflowId: string;
      runId: string;
      /** The user message re-answered, as `agent show` numbers them. */ messageIndex: number;
    }
  | { kind: 'dataset'; file: string; line: number };

/** A tool call as a run made it, with the result it got. */
export interface ObservedToolCall {
  name: string;
  /** The arguments parsed from the model's JSON text; the text itself when it was not JSON. */
  arguments: unknown;
  result?: string;
  isError?: boolean;
}

/**
 * A recorded tool result a candidate's identical call (same tool, same arguments) gets instead of running the tool:
 * what keeps an eval off the real workspace while the candidate does what production did.
 */
export interface ToolFixture {
  tool: string;
  /** The arguments as canonical JSON (keys sorted, no spaces): two calls match when these strings are equal. */
  arguments: string;
  content: string;
  isError: boolean;
}

/** What a recorded run answered to the case's message: the baseline a candidate is compared with. */
export interface RecordedAnswer {
  answer: string;
  toolCalls: ObservedToolCall[];
  usage?: Usage;
  iterations?: number;
}

/** One question an eval asks every candidate. */
export interface EvalCase {
  /** Unique within the eval, stable across its runs (a child run's id is built from it). */
  id: string;
  source: CaseSource;
  /** The conversation before the message, as the recording had it (none for a dataset case without one). */
  context: Message[];
  /** The user message every candidate answers. */
  prompt: string;
  /** The recording's own answer, when the case came from a run. */
  recorded?: RecordedAnswer;
  /** The tool results the recording got, for the candidates' identical calls. */
  toolFixtures: ToolFixture[];
  /**
   * The tools the recording's run was given (its input's `tools`, as `agent run --tools` sets them), when it named
   * them: a candidate that names no tools of its own is offered these, as the recording was.
   */
  tools?: string[];
  /** Graders of this case only (a dataset line's expectations), besides the eval's own. */
  graders?: GraderSpec[];
}

/** An agent with overrides: what the eval asks. `recorded` is the baseline that is never run again. */
export interface Candidate {
  /** Its column in the report: letters, digits, `_`, `-` and `.`. */
  name: string;
  agent?: string;
  model?: string;
  instructions?: string;
  tools?: string[];
  modelSettings?: ModelSettings;
}

/**
 * What a candidate's call of a tool does when no fixture answers it. The default, `scratch`, runs it against a copy of
 * the workspace made for that case and candidate, deleted afterwards; `refuse` gives the model an error result.
 * Tools that are not workspace tools (the user's own, MCP tools) are refused in either mode unless a fixture answers.
 */
export type UnrecordedToolPolicy = 'scratch' | 'refuse';

/** How one candidate answered one case. */
export interface CaseOutcome {
  caseId: string;
  candidate: string;
  /** The child run that answered (empty for the recorded baseline). */
  workflowId: string;
  /** Which run of the candidate on the case, from 1, in an eval that repeats each (`--repeat N`). */
  repeat?: number;
  answer: string;
  status: AgentStatus | 'failed';
  /** The structured output, when the agent has an outputSchema. */
  output?: unknown;
  toolCalls: ObservedToolCall[];
  usage: Usage;
  iterations: number;
  /** Why the run failed, when it did. */
  error?: string;
}

export type GraderSpec =
  | { type: 'equals'; value: string; ignoreCase?: boolean }
  | { type: 'contains'; value: string; ignoreCase?: boolean }
  | { type: 'regex'; pattern: string; flags?: string }
  /** The answer's structured output matches this JSON Schema (the agent's outputSchema when none is given). */
  | { type: 'output-schema'; schema?: Record<string, unknown> }
  /** These calls were made (a call matches when its arguments contain the given ones); with `only`, no tool outside it. */
  | { type: 'tool-calls'; calls?: Array<{ name: string; arguments?: Record<string, unknown> }>; only?: string[] }
  | { type: 'bounds'; maxCostUsd?: number; maxIterations?: number; maxToolCalls?: number }
  /** An LLM judge: a model call with the rubric, on any registered provider (`provider:model`). */
  | { type: 'judge'; rubric: string; model: string; passScore?: number }
  /** A grader function of the user's own, registered on the worker by name (defineGrader). */
  | { type: 'custom'; name: string; options?: Record<string, unknown> };

/** One grader's verdict on one outcome. */
export interface GradeResult {
  /** The grader's label in the report (`contains "refund"`, `judge: <first words of the rubric>`, the custom name). */
  grader: string;
  /** From 0 to 1. */
  score: number;
  pass: boolean;
  reason: string;
  /** What the grading itself cost (a judge's model call). */
  usage?: Usage;
  /** The eval's money budget left this judge unrun, or stopped its run: its pair is then not scored (a cut pair). */
  budgetCut?: true;
}

/** One case, answered and scored by every candidate (and the recording when there is one). */
export interface CaseReport {
  case: Pick<EvalCase, 'id' | 'source' | 'prompt'>;
  /**
   * One entry per candidate, in the eval's candidate order; the recorded baseline first, named `recorded`. In an eval
   * that repeats (`--repeat N`), each candidate's N runs one after another, each with its `repeat`.
   */
  outcomes: Array<CaseOutcome & { grades: GradeResult[]; score: number; pass: boolean }>;
  /** In an eval that repeats: per candidate, its runs' mean score, spread and pass@k on this case. */
  repeats?: RepeatStats[];
}

/** A candidate's repeated runs on one case (or, in the summary, the mean over the cases). */
export interface RepeatStats {
  candidate: string;
  /** The runs scored (a run the budget cut is not one). */
  runs: number;
  /** The mean of their scores. */
  mean: number;
  /** Their spread: the population standard deviation of the scores (0 for a single run). */
  stdev: number;
  /** pass@k for k = 1 … runs: the chance that at least one of k runs drawn from these passes (unbiased estimator). */
  passAtK: number[];
}

/** What an eval returns, prints (`--json`) and renders (the HTML report). */
export interface EvalReport {
  evalId: string;
  startedAt: string;
  candidates: string[];
  cases: CaseReport[];
  /**
   * Per candidate: mean score, cases passed, cost, and cases that scored lower than on the baseline. In an eval that
   * repeats, `passed` and `failed` count runs, a case is worse when its runs' mean is, and `repeats` holds the mean
   * over the cases of each case's spread and pass@k.
   */
  summary: Array<{
    candidate: string;
    score: number;
    passed: number;
    failed: number;
    costUsd: number;
    worse: number;
    repeats?: RepeatStats;
  }>;
  /**
   * Set when the money budget stopped the eval before every case ran: the cases not run (for some candidate at
   * least) are listed, and the pairs it cut mid-way (a run or judge its allowance stopped), which are not scored:
   * never a pass, a fail or worse than recorded; what they spent is in the summary's cost.
   */
  stopped?: { reason: 'budget'; notRun: string[]; cut?: CutPair[] };
  /**
   * Set on a comparison of two evals (`agent eval compare A B`): their ids, and the cases only one of them answered,
   * left out of the cases and the summary. Its candidates are named `<candidate>@<eval id>`.
   */
  compared?: { evals: [string, string]; onlyInFirst: string[]; onlyInSecond: string[] };
}

/** A pair the eval's budget stopped before it was answered and graded: not run, and never scored. */
export interface CutPair {
  case: string;
  candidate: string;
  repeat?: number;
  /** What its runs spent before the allowance stopped them. */
  costUsd: number;
}
