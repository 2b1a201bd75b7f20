// core/limits.ts with every default changed. replay.test.ts bundles the workflows with this module in
// its place and replays the recorded histories: the runs must replay unchanged, since a run's settings
// are resolved on the client and recorded in its input, and the workflow never reads a default.
export * from '../../../core/limits';
export const defaultMaxIterations = 1;
export const defaultMaxConcurrentTools = 1;
export const defaultModelTimeoutSeconds = 1;
export const defaultIdleTimeoutSeconds = 1;
export const defaultKeepRecentTurns = 1;
export const defaultMaxSubagentDepth = 1;
export const defaultMaxHandoffs = 1;
export const defaultApprovalTimeoutSeconds = 60;
export const defaultAgentName = 'changed-default';
export const defaultMaxToolCallsPerReply = 1;
