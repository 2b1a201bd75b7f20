/**
 * The registered name of the agent an eval's LLM judge runs as: on every worker, like the default agent. A file of its
 * own so that workflow code (the eval's judge runs, ./judge-input.ts) names it without loading zod and the agent.
 */
export const evalJudgeAgentName = 'eval-judge';
