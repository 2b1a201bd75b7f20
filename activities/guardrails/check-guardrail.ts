import { ApplicationFailure } from '@temporalio/common';
import { failureTypes } from '../../core/errors';
import { readVerdict, type GuardrailCheckInput, type TrippedGuardrail } from '../../core/guardrails';

/** What the activity needs of the worker's registry (agents/registry.ts): its guardrails by name, each with its check. */
export interface GuardrailLookup {
  guardrails: ReadonlyMap<string, { name: string; check?: (input: GuardrailCheckArguments) => unknown }>;
}

/** What a code guardrail's check gets (agents/define-guardrail.ts's GuardrailInput). */
export type GuardrailCheckArguments = Omit<GuardrailCheckInput, 'guardrail' | 'steering'> & { steering: boolean };

/**
 * The one activity of code guardrails: looks the guardrail up by name in the worker's registry and runs its check.
 * Returns the tripped guardrail and its reason, or null when the text may pass. A check that throws is retried as
 * the guardrail's settings say; the workflow trips the guardrail when it still fails (workflows/guardrails/).
 */
export function createCheckGuardrail(registry: GuardrailLookup) {
  return async function checkGuardrail(input: GuardrailCheckInput): Promise<TrippedGuardrail | null> {
    const guardrail = registry.guardrails.get(input.guardrail);
    if (!guardrail?.check) {
      throw ApplicationFailure.create({
        type: failureTypes.configuration,
        message: `guardrail "${input.guardrail}" is not a code guardrail registered on this worker`,
        nonRetryable: true,
      });
    }
    const verdict = await guardrail.check({
      text: input.text,
      agent: input.agent,
      checks: input.checks,
      steering: input.steering ?? false,
      ...(input.output !== undefined && { output: input.output }),
      ...(input.toolCall && { toolCall: input.toolCall }),
    });
    return readVerdict(guardrail.name, verdict) ?? null;
  };
}
