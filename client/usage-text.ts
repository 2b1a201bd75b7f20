import { describeCost } from '../core/cost';
import type { Usage } from '../core/messages';

/** `200 in / 40 out tokens, $0.000054`: tokens and what they cost, an unknown price said as such. */
export function describeUsage(usage: Usage): string {
  const tokens = `${usage.inputTokens} in / ${usage.outputTokens} out tokens`;
  return usage.costUsd === undefined && !usage.unpricedCalls ? tokens : `${tokens}, ${describeCost(usage)}`;
}

/** `, $0.000054` after a token count, or nothing when no price was involved. */
export function costSuffix(usage: Usage): string {
  return usage.costUsd === undefined && !usage.unpricedCalls ? '' : `, ${describeCost(usage)}`;
}
