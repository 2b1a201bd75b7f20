/** Bounds that keep every payload well under Temporal's limits (2 MB per payload, warnings at 512 KB). */

/** A tool result longer than this is cut, with a marker saying so, before it reaches history. */
export const maxToolOutputChars = 64 * 1024;

/** A tool's error message longer than this is cut before it is reported (a huge one would not even reach the server). */
export const maxToolErrorChars = 8 * 1024;

/** write_file refuses content larger than this. */
export const maxWriteFileBytes = 1024 * 1024;

/** A user prompt or initial message larger than this is rejected as input. */
export const maxPromptChars = 256 * 1024;

/**
 * Defaults, applied on the client when a run starts (agent/resolve-input.ts) and
 * recorded in the run's input; the workflow never reads them, so changing one
 * here cannot change a run in flight.
 */
export const defaultMaxIterations = 20;
export const defaultMaxConcurrentTools = 8;
/**
 * Tool calls run from one reply. Each costs up to six history events (the activity's three, and a workflow task's
 * three when its result arrives alone), so a round adds at most ~400: far below Temporal's 51,200-event limit,
 * which the run never nears since it continues as new at Temporal's suggestion (~4,096 events) between iterations.
 */
export const defaultMaxToolCallsPerReply = 64;
export const defaultModelTimeoutSeconds = 300;
export const defaultIdleTimeoutSeconds = 3600;
export const defaultKeepRecentTurns = 4;
export const defaultMaxSubagentDepth = 3;
export const defaultMaxHandoffs = 10;
/** How long a tool call waits for a person's approval before it is not run. */
export const defaultApprovalTimeoutSeconds = 3600;
/** The agent of a run that names none. */
export const defaultAgentName = 'default';
export const defaultTaskQueue = 'durable-agent';
