import type { BatchSettings } from '../../core/batch-settings';
import type { ResolvedAgentInput } from '../../core/input';
import type { CarriedState } from '../../core/carried-state';
import type {
  CaseOutcome,
  CaseReport,
  Candidate,
  CutPair,
  EvalCase,
  EvalReport,
  GradeResult,
  GraderSpec,
  UnrecordedToolPolicy,
} from '../../core/eval-types';

/** The eval workflow's type name, as a client starts it and the Web UI lists it. */
export const evalWorkflowType = 'evalWorkflow';

/** A candidate as the eval runs it: its overrides, and the agent input they resolve to (checked on the client). */
export interface CandidateRun {
  candidate: Candidate;
  /**
   * Every setting of the candidate's child runs, resolved once on the client (defaults filled in), without a prompt:
   * each case gives its own conversation. The workspace is the eval's; each child gets a scratch copy of it.
   */
  input: Omit<ResolvedAgentInput, 'prompt' | 'messages'>;
}

/**
 * The eval workflow's input, every setting explicit (evals/run-eval.ts resolves it). The cases travel whole: an
 * input over 256 KB goes to the data converter's external storage (storage/data-converter.ts), so history keeps a
 * claim of a few hundred bytes however many cases there are, and each run of a continued eval reads the same object.
 */
export interface EvalWorkflowInput {
  cases: EvalCase[];
  candidates: CandidateRun[];
  /** Graders of every case, besides each case's own. */
  graders: GraderSpec[];
  /** Child runs (candidates' and judges') at once. */
  concurrency: number;
  /** Each candidate answers each case this many times (default 1): the report gives the mean, spread and pass@k. */
  repeat?: number;
  /** The money budget in US dollars: no child starts once the spend plus the next one's worst case would pass it. */
  budgetUsd?: number;
  /** Candidate and judge runs through the providers' batch APIs (core/batch-settings.ts). */
  batch?: BatchSettings;
  unrecordedTools: UnrecordedToolPolicy;
  /** The workspace the cases were recorded in: never written; scratch copies are made from it. */
  workspace: string;
  /** When the eval started (ISO 8601), set by the client: the report's `startedAt`, the same in every run of the chain. */
  startedAt: string;
  /**
   * Continue as new once this many (case, candidate) pairs finished in one run (besides Temporal's own suggestion):
   * a test and benchmark knob; absent, only the suggestion (about 4,096 events or 4 MB of history) counts.
   */
  pairsPerRun?: number;
  /** What the previous run of this eval carried over (continue-as-new): the eval's own, never a caller's. */
  carried?: CarriedEval;
}

/** One pair answered and scored: a CaseReport's outcome entry. */
export type ScoredOutcome = CaseOutcome & { grades: GradeResult[]; score: number; pass: boolean };

/**
 * What one run of the eval hands the next: the pairs done, the money spent, the stream. Version 1 had no `cut`
 * (read as none: a build before it scored cut pairs).
 */
export interface CarriedEval {
  version: 1;
  outcomes: ScoredOutcome[];
  /** The pairs the budget cut mid-way: not scored, their spend counted. */
  cut?: CutPair[];
  spentUsd: number;
  /** The dearest pair so far (its run and its judges): the next pair's worst case. */
  worstPairUsd: number;
  /** The eval's stream (workflows/agent-stream.ts), so a watcher follows the eval across runs. */
  stream: NonNullable<CarriedState['stream']>;
}

export type { CaseReport, EvalReport };

/**
 * The activities the eval workflow calls by name, besides the agent workflow's: a scratch copy of the workspace per
 * child (evals/cases/) and the graders that are not judges (evals/graders/). Types only: workflow code imports these.
 */
export interface EvalActivities {
  makeScratchWorkspace(input: { workspace: string; key: string }): Promise<{ path: string }>;
  removeScratchWorkspace(input: { path: string }): Promise<void>;
  gradeOutcome(input: { specs: GraderSpec[]; evalCase: EvalCase; outcome: CaseOutcome }): Promise<GradeResult[]>;
}
