/**
 * The eval's money budget. Every pair (a candidate's run on a case, and its judges) starts with an allowance, which
 * its runs get as their `maxCostUsd`, so a run stops itself (status cost_budget) before its spend could pass it. The
 * allowances of pairs in flight are held back from what is left; the rest is shared among the slots being filled.
 * No pair starts once the spend, what is held back, and the next pair's worst case (the dearest pair so far) would
 * pass the budget: the spend of finished pairs plus the allowances of those in flight never exceeds it.
 */
export class EvalBudget {
  private heldBack = 0;

  constructor(
    private readonly limitUsd: number | undefined,
    public spentUsd = 0,
    public worstPairUsd = 0,
  ) {}

  /**
   * The next pair's allowance, given the slots free now (this one included); undefined without a budget; `stop` when
   * the pair cannot be afforded.
   */
  allowance(freeSlots: number): number | undefined | 'stop' {
    if (this.limitUsd === undefined) return undefined;
    const left = this.limitUsd - this.spentUsd - this.heldBack;
    if (left <= 0 || this.spentUsd + this.heldBack + this.worstPairUsd > this.limitUsd) return 'stop';
    const share = left / Math.max(1, freeSlots);
    // The share of a slot may be less than the dearest pair so far: that pair gets what the dearest needed, if left.
    const allowance = Math.min(left, Math.max(share, this.worstPairUsd));
    this.heldBack += allowance;
    return allowance;
  }

  /** A pair ended: its allowance is released and what it really spent counts. */
  settle(allowance: number | undefined, spentUsd: number): void {
    if (allowance !== undefined) this.heldBack -= allowance;
    this.spentUsd += spentUsd;
    this.worstPairUsd = Math.max(this.worstPairUsd, spentUsd);
  }
}
