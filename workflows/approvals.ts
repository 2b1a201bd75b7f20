import { CancellationScope, condition, getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import type { ApprovalDecision, PendingApproval } from '../core/result';
import { approvalDecidedSignal, approvalRequestedSignal, approvalSettledSignal } from './definitions';

interface Local {
  request: PendingApproval;
  decision?: ApprovalDecision;
}

interface Forwarded {
  request: PendingApproval;
  /** The child workflow that asked, and the id the request has there. */
  child: string;
  childId: string;
}

/**
 * Tool calls waiting for a person's approval. A run's own calls wait here; a
 * subagent's requests are forwarded up to its parent (signals), so every
 * request of a tree of agents surfaces at the top-level run, with the path of
 * agents that asked, and a decision made there travels back down to the run
 * whose call it is. Ids are the call id, prefixed with the tool call ids of the
 * subagents on the way (`call_r/call_w`).
 */
export class Approvals {
  private readonly local = new Map<string, Local>();
  private readonly forwarded = new Map<string, Forwarded>();

  constructor(
    private readonly parent: string | undefined,
    private readonly onChange: () => void,
  ) {}

  /**
   * Requests a previous run was waiting on when it continued as new: known from
   * this run's first moment, so a decision sent meanwhile is accepted and kept
   * for the round that waits on them again.
   */
  restore(requests: PendingApproval[]): void {
    for (const request of requests) this.local.set(request.id, { request });
  }

  /** What waits for a decision here or below, oldest first. */
  pending(): PendingApproval[] {
    return [
      ...[...this.local.values()].filter((entry) => !entry.decision).map((entry) => entry.request),
      ...[...this.forwarded.values()].map((entry) => entry.request),
    ];
  }

  /** Whether a decision on one of this run's calls has come in that its waiter has not yet seen. */
  decidedUnseen(): boolean {
    return [...this.local.values()].some((entry) => entry.decision !== undefined);
  }

  knows(id: string): boolean {
    return (this.local.has(id) && !this.local.get(id)!.decision) || this.forwarded.has(id);
  }

  /**
   * Waits for a decision on one of this run's calls, until `timeoutSeconds`
   * after it was first asked (none: as long as it takes). A cancelled turn
   * stops waiting; either way the request is withdrawn, here and at the parent.
   */
  async await(request: PendingApproval, timeoutSeconds: number | undefined): Promise<ApprovalDecision> {
    const entry = this.local.get(request.id) ?? { request };
    this.local.set(request.id, entry);
    this.tellParent(approvalRequestedSignal, { from: workflowInfo().workflowId, request });
    this.onChange();
    try {
      if (timeoutSeconds === undefined) {
        await condition(() => entry.decision !== undefined);
        return entry.decision!;
      }
      // At least a millisecond: a timer of zero is no timer at all.
      const left = Math.max(1, Date.parse(request.askedAt) + timeoutSeconds * 1000 - Date.now());
      const decided = await condition(() => entry.decision !== undefined, left);
      return decided ? entry.decision! : { approved: false, reason: `no one approved it within ${timeoutSeconds} s` };
    } finally {
      this.local.delete(request.id);
      // Withdrawn even when the turn is being cancelled: the parent must not keep a request no one waits on.
      CancellationScope.nonCancellable(async () => this.tellParent(approvalSettledSignal, { from: workflowInfo().workflowId, id: request.id }));
      this.onChange();
    }
  }

  /** A decision from a person (an update) or from the parent (a signal); false when nothing waits under that id. */
  decide(id: string, decision: ApprovalDecision): boolean {
    const own = this.local.get(id);
    if (own && !own.decision) {
      own.decision = decision;
      return true;
    }
    const forwarded = this.forwarded.get(id);
    if (!forwarded) return false;
    this.forwarded.delete(id);
    // The child may have finished meanwhile (timed out, cancelled): then no one is left to tell.
    getExternalWorkflowHandle(forwarded.child)
      .signal(approvalDecidedSignal, { id: forwarded.childId, decision })
      .catch(() => {});
    this.onChange();
    return true;
  }

  /** A subagent (`from`, a child of this run) asks; the request waits here too, and goes on up to this run's parent. */
  childAsked(from: string, request: PendingApproval, agent: string): void {
    const callId = from.slice(workflowInfo().workflowId.length + 1);
    const qualified: PendingApproval = { ...request, id: `${callId}/${request.id}`, agents: [agent, ...request.agents] };
    this.forwarded.set(qualified.id, { request: qualified, child: from, childId: request.id });
    this.tellParent(approvalRequestedSignal, { from: workflowInfo().workflowId, request: qualified });
    this.onChange();
  }

  /** A subagent's request was decided or withdrawn there. */
  childSettled(from: string, id: string): void {
    const callId = from.slice(workflowInfo().workflowId.length + 1);
    const qualified = `${callId}/${id}`;
    if (!this.forwarded.delete(qualified)) return;
    this.tellParent(approvalSettledSignal, { from: workflowInfo().workflowId, id: qualified });
    this.onChange();
  }

  private tellParent<T>(signal: { name: string }, payload: T): void {
    // A parent that has finished meanwhile has no one to show the request to.
    if (this.parent) getExternalWorkflowHandle(this.parent).signal(signal.name, payload).catch(() => {});
  }
}
