import type { PolicyDecision } from './approval-policy';

/**
 * What becomes of a call once a person has approved it with arguments of their own, decided again by the same policy
 * (and the same path resolution) as the model's call was: a rule that now refuses refuses it, naming the rule; a rule
 * that now asks, and that the person has not answered for this call yet, puts the edited call to them again; anything
 * else runs it. A rule the person already answered does not ask twice: their approval of arguments they wrote
 * themselves stands for it. So an edit is never let through by having been approved once, and a person is never
 * asked the same question about their own edit in a loop.
 */
export type EditedCallStep = { kind: 'refuse'; decision: PolicyDecision } | { kind: 'ask'; rule: string } | { kind: 'run' };

export function editedCallStep(decision: PolicyDecision, answered: ReadonlySet<string>): EditedCallStep {
  if (decision.action === 'deny') return { kind: 'refuse', decision };
  if (decision.action === 'ask' && !answered.has(decision.rule)) return { kind: 'ask', rule: decision.rule };
  return { kind: 'run' };
}
