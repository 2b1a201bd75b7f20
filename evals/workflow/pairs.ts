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
  key: string;
}

/** Every pair of the eval in report order: per case, its recorded baseline first, then each candidate. */
export function pairsOf(cases: EvalCase[], candidates: CandidateRun[]): Pair[] {
  return cases.flatMap((evalCase) => [
    ...(evalCase.recorded
      ? [{ evalCase, candidate: undefined, name: recordedName, key: pairKey(evalCase.id, recordedName) }]
      : []),
    ...candidates.map((candidate) => ({
      evalCase,
      candidate,
      name: candidate.candidate.name,
      key: pairKey(evalCase.id, candidate.candidate.name),
    })),
  ]);
}

export function pairKey(caseId: string, candidate: string): string {
  return JSON.stringify([caseId, candidate]);
}

/**
 * The child run's workflow id: the eval's id, the case's and the candidate's, so the same pair of the same eval can
 * only ever start one run (the eval starts it with REJECT_DUPLICATE: a replay after a killed worker finds the run it
 * started, and a second start of that id is refused by the server instead of paid for twice).
 */
export function childWorkflowId(evalId: string, caseId: string, candidate: string): string {
  return `${evalId}/${caseId}/${candidate}`;
}

/** A judge's run: the judged pair's id and the judge's place among the pair's graders. */
export function judgeWorkflowId(evalId: string, caseId: string, candidate: string, judge: number): string {
  return `${childWorkflowId(evalId, caseId, candidate)}/judge-${judge + 1}`;
}
