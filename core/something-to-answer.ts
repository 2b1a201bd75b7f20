/**
 * A run needs something to answer: a prompt, initial messages, a session's
 * messages to come, or a conversation carried over from the previous run.
 * Shared by the zod schemas (core/input.ts, core/resolve-input.ts) and the
 * workflow's zod-free check (core/input-check.ts).
 */
export function requiresSomethingToAnswer(input: {
  prompt?: string;
  messages?: unknown[];
  session?: unknown;
  carried?: unknown;
}): boolean {
  return input.prompt !== undefined || (input.messages?.length ?? 0) > 0 || Boolean(input.session) || Boolean(input.carried);
}

export const nothingToAnswer = 'either a prompt or initial messages are required';

/** zod's refine options for it: a fresh object each time, since zod keeps (and rewrites) the one it is given. */
export function somethingToAnswer(): { message: string; path: string[] } {
  return { message: nothingToAnswer, path: ['prompt'] };
}
