import type { AgentStatus } from '../core/result';

/**
 * Every exit code the CLI gives, in one place. docs/cli.md lists them ("Commands",
 * Exit codes) and test/unit/readme-tables.test.ts holds the two together.
 */
export const exitCodes = {
  /** The run, message or command did what was asked. */
  answered: 0,
  /** The run or message failed, was cancelled or terminated; or the command could not do its work. */
  failed: 1,
  /** Bad usage or invalid input: nothing was started. */
  badUsage: 2,
  /** A run or turn ended without a full answer (statusExitCodes). */
  incomplete: 3,
  /** `agent eval` ran and a gate failed: a candidate's mean score under --fail-under, or a case worse than recorded (--fail-on-worse). */
  evalGateFailed: 4,
  /** A guardrail stopped the message or its answer (status `guardrail_tripped`); a session goes on. */
  guardrailTripped: 5,
  /** Ctrl-C stopped the CLI following a run, which goes on (128 + SIGINT, as shells report it). */
  stoppedFollowing: 130,
} as const;

/**
 * The exit code of a run or turn that ended with `status`: README.md's "How a
 * run ends" table. A Record over the whole union, so a new status does not
 * compile until it has its code (and test/unit/readme-tables.test.ts then wants its row).
 */
export const statusExitCodes: Record<
  AgentStatus,
  typeof exitCodes.answered | typeof exitCodes.incomplete | typeof exitCodes.guardrailTripped
> = {
  completed: exitCodes.answered,
  ended: exitCodes.answered,
  idle_timeout: exitCodes.answered,
  max_iterations: exitCodes.incomplete,
  truncated: exitCodes.incomplete,
  refused: exitCodes.incomplete,
  empty: exitCodes.incomplete,
  invalid_output: exitCodes.incomplete,
  token_budget: exitCodes.incomplete,
  cost_budget: exitCodes.incomplete,
  interrupted: exitCodes.incomplete,
  guardrail_tripped: exitCodes.guardrailTripped,
};
