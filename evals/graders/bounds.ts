import type { CaseOutcome, GradeResult } from '../../core/eval-types';
import { shareOfChecks } from './grade-result';

type BoundsSpec = { type: 'bounds'; maxCostUsd?: number; maxIterations?: number; maxToolCalls?: number };

/** Each bound given holds; the score is the share that did. A cost not known (an unpriced model) breaks a cost bound. */
export function gradeBounds(spec: BoundsSpec, outcome: CaseOutcome, label: string): GradeResult {
  const checks: Array<{ held: boolean; reason: string }> = [];
  if (spec.maxCostUsd !== undefined) checks.push(costCheck(spec.maxCostUsd, outcome));
  if (spec.maxIterations !== undefined)
    checks.push({
      held: outcome.iterations <= spec.maxIterations,
      reason: `${outcome.iterations} iterations, over ${spec.maxIterations}`,
    });
  if (spec.maxToolCalls !== undefined)
    checks.push({
      held: outcome.toolCalls.length <= spec.maxToolCalls,
      reason: `${outcome.toolCalls.length} tool calls, over ${spec.maxToolCalls}`,
    });
  return shareOfChecks(label, checks);
}

function costCheck(max: number, outcome: CaseOutcome): { held: boolean; reason: string } {
  const { costUsd, unpricedCalls } = outcome.usage;
  if (costUsd !== undefined && costUsd > max) return { held: false, reason: `cost $${costUsd.toFixed(6)}, over $${max}` };
  if (costUsd === undefined || unpricedCalls)
    return { held: false, reason: `cost not known (${unpricedCalls ?? 'some'} model calls without a price)` };
  return { held: true, reason: '' };
}
