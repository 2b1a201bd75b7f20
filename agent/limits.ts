/** Bounds that keep every payload well under Temporal's limits (2 MB per payload, warnings at 512 KB). */

/** A tool result longer than this is cut, with a marker saying so, before it reaches history. */
export const maxToolOutputChars = 64 * 1024;

/** A tool's error message longer than this is cut before it is reported (a huge one would not even reach the server). */
export const maxToolErrorChars = 8 * 1024;

/** write_file refuses content larger than this. */
export const maxWriteFileBytes = 1024 * 1024;

/** A user prompt or initial message larger than this is rejected as input. */
export const maxPromptChars = 256 * 1024;

export const defaultMaxIterations = 20;
export const defaultMaxConcurrentTools = 8;
export const defaultTaskQueue = 'durable-agent';
