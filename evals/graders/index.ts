/** How an eval scores an outcome: the built-in graders, graders of your own, and the LLM judge. */
export { gradeBuiltIn, isBuiltInGrader, type BuiltInGraderSpec } from './grade-built-in';
export { checkGraderSpecs, graderSpecProblems, type GraderSpecContext } from './check-grader-specs';
export { graderLabel } from './grader-label';
export {
  defineGrader,
  isGrader,
  type Grader,
  type GraderDefinition,
  type GraderInput,
  type GraderVerdict,
} from '../../agents/define-grader';
export { createGradeOutcome, type GradeOutcomeInput } from './grade-outcome';
export { evalJudgeAgent, evalJudgeAgentName, judgeVerdictSchema } from './judge-agent';
export { judgeRunInput, judgePromptLimits } from './judge-input';
export { readJudgeVerdict, judgeRunFailed, defaultJudgePassScore } from './judge-verdict';
