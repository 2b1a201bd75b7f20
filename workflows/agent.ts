import { ApplicationFailure } from '@temporalio/workflow';
import { failureTypes } from '../core/errors';
import type { ResolvedAgentInput } from '../core/input';
import { checkResolvedInput } from '../core/input-check';
import type { AgentResult } from '../core/result';
import { AgentWorkflowRun } from './agent-run';
import { declareVersioningBehavior } from './versioning';

export { idleClockPatch } from './agent-run';
export { updatesBeforeContinueAsNew } from './hand-over-rule';
export { emptyReplyPrompt, reflectionPrompt } from './turn';

/**
 * The durable agent. A one-shot run answers its prompt and ends. A session
 * (`input.session`) then waits for more user messages, each a sendMessage update
 * answered in order, until `endSession` or its idle timeout; a turn that fails
 * fails only its own message. Long runs continue as new, carrying the
 * conversation, counters, settings and the messages not yet answered, in the
 * middle of a turn too. The run itself is workflows/agent-run.ts.
 */
export async function agentWorkflow(rawInput: ResolvedAgentInput): Promise<AgentResult> {
  return new AgentWorkflowRun(validInput(rawInput)).run();
}
// Under Worker Versioning, one-shot runs are pinned and sessions auto-upgrade (workflows/versioning.ts).
declareVersioningBehavior(agentWorkflow);

function validInput(rawInput: ResolvedAgentInput): ResolvedAgentInput {
  const check = checkResolvedInput(rawInput);
  if (!check.ok) {
    throw ApplicationFailure.create({
      type: failureTypes.invalidInput,
      message: `invalid agent input: ${check.problems}`,
      nonRetryable: true,
    });
  }
  return check.input;
}
