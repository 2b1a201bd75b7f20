/**
 * Where an eval's cases come from (docs/evals-cases.md): recorded runs (by ids, a visibility query, or history files) and
 * JSONL datasets. Every function here returns EvalCase[] of core/eval-types.ts.
 */
export { casesFromRuns, casesFromHistoryFiles, casesFromHistories } from './from-runs';
export type { CasesFromRunsOptions, RecordedCaseOptions, RecordedChain } from './from-runs';
export { casesFromDataset, parseDataset } from './dataset';
export { casesFromConversation, turnStarts } from './recorded-cases';
export { recordedConversation, type RecordedConversation } from './recorded-conversation';
export { safeContext } from './safe-context';
export { toolFixtures, maxFixtureChars } from './tool-fixtures';
export { graderSpecSchema } from './grader-spec-schema';
