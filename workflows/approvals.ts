import { CancellationScope, condition, getExternalWorkflowHandle, log, workflowInfo } from '@temporalio/workflow';
import type { ApprovalDecision, PendingApproval } from '../core/result';
import { approvalDecidedSignal, approvalRequestedSignal, approvalSettledSignal } from './definitions';

interface Local {
  request: PendingApproval;
  decision?: ApprovalDecision;
}

/** What the run is told as requests come and go: its details refresh, and its stream tells watchers. */
export interface ApprovalListener {
  changed(): void;
  /** `input`: the call's arguments bounded for the stream (core/stream-tool-input.ts), for this run's own calls. */
  asked(request: PendingApproval, input?: unknown): void;
  /** `rule`: what made the request ask (PendingApproval's `rule`). */
  decided(id: string, decision: ApprovalDecision, rule?: string): void;
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
    private readonly listener: ApprovalListener,
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
   * Why a decision on `id` (none: on every call waiting) cannot be taken, or undefined when it can. The one check
   * every decision passes, whether it comes by update (its validator) or by signal (see `decideFromParent`).
   */
  refusal(id: string | undefined): string | undefined {
    const waiting = this.pending().map((request) => request.id);
    if (waiting.length === 0) return 'no tool call is waiting for approval';
    if (id !== undefined && !this.knows(id))
      return `no tool call "${id}" is waiting for approval; waiting: ${waiting.join(', ')}`;
    return undefined;
  }

  /**
   * A decision that came by signal. Only a parent decides by signal, and only on a call this run forwarded to it:
   * every request here is forwarded, so a run with no parent takes none. A signal cannot be refused, so one that
   * fails the check is dropped, and logged: `temporal workflow signal` cannot go around the update's validator.
   */
  decideFromParent(payload: unknown): void {
    const { id, decision } = (payload ?? {}) as { id?: unknown; decision?: unknown };
    const problem = !this.parent
      ? 'this run has no parent to decide for it; decide with the approve or deny update'
      : typeof id !== 'string'
        ? 'it names no call'
        : !isDecision(decision)
          ? 'it carries no valid decision'
          : this.refusal(id);
    if (problem !== undefined) {
      log.warn(`an approval decision sent by signal was dropped: ${problem}`);
      return;
    }
    this.decide(id as string, decision as ApprovalDecision);
  }

  /**
   * Waits for a decision on one of this run's calls, until `timeoutSeconds`
   * after it was first asked (none: as long as it takes). A cancelled turn
   * stops waiting; either way the request is withdrawn, here and at the parent.
   */
  async await(request: PendingApproval, timeoutSeconds: number | undefined, input?: unknown): Promise<ApprovalDecision> {
    const entry = this.local.get(request.id) ?? { request };
    this.local.set(request.id, entry);
    this.tellParent(approvalRequestedSignal, { from: workflowInfo().workflowId, request });
    this.listener.asked(request, input);
    this.listener.changed();
    try {
      const decision = await this.decisionOn(entry, timeoutSeconds);
      this.listener.decided(request.id, decision, request.rule);
      return decision;
    } finally {
      this.local.delete(request.id);
      // Withdrawn even when the turn is being cancelled: the parent must not keep a request no one waits on.
      CancellationScope.nonCancellable(async () =>
        this.tellParent(approvalSettledSignal, { from: workflowInfo().workflowId, id: request.id }),
      );
      this.listener.changed();
    }
  }

  private async decisionOn(entry: Local, timeoutSeconds: number | undefined): Promise<ApprovalDecision> {
    if (timeoutSeconds === undefined) {
      await condition(() => entry.decision !== undefined);
      return entry.decision!;
    }
    // At least a millisecond: a timer of zero is no timer at all.
    const left = Math.max(1, Date.parse(entry.request.askedAt) + timeoutSeconds * 1000 - Date.now());
    const decided = await condition(() => entry.decision !== undefined, left);
    return decided ? entry.decision! : { approved: false, reason: `no one approved it within ${timeoutSeconds} s` };
  }

  /** A decision that passed `refusal` (an update's validator, or `decideFromParent`); false when nothing waits under that id. */
  decide(id: string, decision: ApprovalDecision): boolean {
    const own = this.local.get(id);
    if (own && !own.decision) {
      own.decision = decision;
      return true;
    }
    const forwarded = this.forwarded.get(id);
    if (!forwarded) return false;
    this.forwarded.delete(id);
    this.listener.decided(id, decision, forwarded.request.rule);
    // The child may have finished meanwhile (timed out, cancelled): then no one is left to tell.
    getExternalWorkflowHandle(forwarded.child)
      .signal(approvalDecidedSignal, { id: forwarded.childId, decision })
      .catch(() => {});
    this.listener.changed();
    return true;
  }

  /** A subagent (`from`, a child of this run) asks; the request waits here too, and goes on up to this run's parent. */
  childAsked(from: string, request: PendingApproval, agent: string): void {
    const callId = childCallId(from);
    if (
      callId === undefined ||
      typeof request?.id !== 'string' ||
      typeof request.summary !== 'string' ||
      !Array.isArray(request.agents)
    ) {
      log.warn(`an approval request sent by signal was dropped: it does not come from a subagent of this run`);
      return;
    }
    const qualified: PendingApproval = { ...request, id: `${callId}/${request.id}`, agents: [agent, ...request.agents] };
    this.forwarded.set(qualified.id, { request: qualified, child: from, childId: request.id });
    this.tellParent(approvalRequestedSignal, { from: workflowInfo().workflowId, request: qualified });
    this.listener.asked(qualified);
    this.listener.changed();
  }

  /** A subagent's request was decided or withdrawn there. */
  childSettled(from: string, id: string): void {
    const callId = childCallId(from);
    if (callId === undefined) return;
    const qualified = `${callId}/${id}`;
    if (!this.forwarded.delete(qualified)) return;
    this.tellParent(approvalSettledSignal, { from: workflowInfo().workflowId, id: qualified });
    this.listener.changed();
  }

  private tellParent<T>(signal: { name: string }, payload: T): void {
    // A parent that has finished meanwhile has no one to show the request to.
    if (this.parent)
      getExternalWorkflowHandle(this.parent)
        .signal(signal.name, payload)
        .catch(() => {});
  }
}

/** The subagent call id of a child of this run (`<this run>/<call id>`, see subagent-call.ts); undefined for any other workflow. */
function childCallId(from: unknown): string | undefined {
  const prefix = `${workflowInfo().workflowId}/`;
  if (typeof from !== 'string' || !from.startsWith(prefix)) return undefined;
  const callId = from.slice(prefix.length);
  return /^[A-Za-z0-9_-]+$/.test(callId) ? callId : undefined;
}

function isDecision(value: unknown): value is ApprovalDecision {
  if (typeof value !== 'object' || value === null) return false;
  const decision = value as { approved?: unknown; reason?: unknown; arguments?: unknown };
  if (decision.approved === true) return decision.arguments === undefined || typeof decision.arguments === 'string';
  return decision.approved === false && typeof decision.reason === 'string';
}
