import type { EvalCase } from '../../core/eval-types';
import type { CandidateRun } from './definitions';

/** The baseline's name in a report: the recording's own answer, graded like a candidate's and never run again. */
export const recordedName = 'recorded';

/** One (case, candidate) pair: what the eval answers and scores once. The recorded baseline is a pair without a run. */
export interface Pair {
  evalCase: EvalCase;
  /** Undefined for the recorded baseline. */
  candidate: CandidateRun | undefined;
  name: string;
  /** Which run of the candidate on the case this is, from 1 (`--repeat N`); the baseline's is 1. */
  repeat: number;
  key: string;
}

/**
 * Every pair of the eval in report order: per case, its recorded baseline first (never repeated), then each
 * candidate `repeat` times.
 */
export function pairsOf(cases: EvalCase[], candidates: CandidateRun[], repeat = 1): Pair[] {
  return cases.flatMap((evalCase) => [
    ...(evalCase.recorded
      ? [{ evalCase, candidate: undefined, name: recordedName, repeat: 1, key: pairKey(evalCase.id, recordedName) }]
      : []),
    ...candidates.flatMap((candidate) =>
      Array.from({ length: repeat }, (_, index) => ({
        evalCase,
        candidate,
        name: candidate.candidate.name,
        repeat: index + 1,
        key: pairKey(evalCase.id, candidate.candidate.name, index + 1),
      })),
    ),
  ]);
}

/** A pair's key: its case, its candidate and which repeat (the first's key is the one evals before repeats used). */
export function pairKey(caseId: string, candidate: string, repeat = 1): string {
  return JSON.stringify(repeat > 1 ? [caseId, candidate, repeat] : [caseId, candidate]);
}

/**
 * The child run's workflow id: the eval's id, the case's and the candidate's (and `repeat-N` past the first run of a
 * repeated eval), so the same pair of the same eval can
 * only ever start one run (the eval starts it with REJECT_DUPLICATE: a replay after a killed worker finds the run it
 * started, and a second start of that id is refused by the server instead of paid for twice).
 */
export function childWorkflowId(evalId: string, caseId: string, candidate: string, repeat = 1): string {
  return `${evalId}/${caseId}/${candidate}${repeat > 1 ? `/repeat-${repeat}` : ''}`;
}

/** A judge's run: the judged pair's id and the judge's place among the pair's graders. */
export function judgeWorkflowId(evalId: string, caseId: string, candidate: string, judge: number, repeat = 1): string {
  return `${childWorkflowId(evalId, caseId, candidate, repeat)}/judge-${judge + 1}`;
}
