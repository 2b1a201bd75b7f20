import type { EvalReport } from '../core/eval-types';
import type { AgentTestEnv, TestEvalOptions } from './agent-test-env';

/**
 * `runEval()` of durable-agent/testing: an eval on the test env's worker, every candidate's and judge's model call
 * answered by its scripted model, for unit tests of prompts with no API (docs/evals.md). The same as
 * `env.runEval(options)`; a function too, so that a test reads like one that calls durable-agent's runEval.
 */
export function runEval(env: AgentTestEnv, options: TestEvalOptions): Promise<EvalReport> {
  return env.runEval(options);
}
