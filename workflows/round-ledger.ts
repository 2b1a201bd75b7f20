import { workflowInfo } from '@temporalio/workflow';
import { describeCall, type ApprovalDescription } from '../core/approval-description';
import type { ToolCall, ToolResultMessage } from '../core/messages';
import type { PendingApproval } from '../core/result';
import type { TimedWait } from '../core/timed-wait';

/**
 * What one tool round knows of its calls while they run: the results so far
 * (a previous run's too, after continue-as-new), which calls a person must
 * approve and how each is described, when each first asked, and how many wait
 * for a decision now.
 */
export class RoundLedger {
  readonly finished: Map<string, ToolResultMessage>;
  private readonly asked: Map<string, string>;
  /** The waits in the workflow (time/) an earlier run began, by call id: they wait on, approved already. */
  private readonly carriedWaits: Map<string, TimedWait>;
  /** Calls waiting for a person's decision right now. */
  waiting = 0;

  constructor(
    /** The ids the tools' own rules want approved (decided by the model activity). */
    private readonly approvalIds: string[],
    /** The tools whose every call is approved in this run (workflows/approval-tools.ts); none when approvals are skipped. */
    private readonly approvalTools: string[] | 'skip',
    private readonly descriptions: Record<string, ApprovalDescription> | undefined,
    earlier: { finished?: ToolResultMessage[]; waiting?: PendingApproval[]; waits?: TimedWait[] },
  ) {
    this.finished = new Map((earlier.finished ?? []).map((result) => [result.toolCallId, result]));
    this.asked = new Map((earlier.waiting ?? []).map((request) => [request.id, request.askedAt]));
    this.carriedWaits = new Map((earlier.waits ?? []).map((wait) => [wait.callId, wait]));
  }

  /** A call that was waiting in the workflow when the run continued as new was approved (if it had to be) before it began. */
  needsApproval(call: ToolCall): boolean {
    return (
      this.approvalTools !== 'skip' &&
      !this.carriedWaits.has(call.id) &&
      (this.approvalIds.includes(call.id) || this.approvalTools.includes(call.name))
    );
  }

  /** The wait an earlier run began for this call, if it continued as new in the middle of it. */
  carriedWait(id: string): TimedWait | undefined {
    return this.carriedWaits.get(id);
  }

  /** When the call first asked (now, unless a previous run asked already): its timeout runs from then. */
  askedAt(id: string): string {
    const askedAt = this.asked.get(id) ?? new Date().toISOString();
    this.asked.set(id, askedAt);
    return askedAt;
  }

  /** What a person is shown; replies recorded before descriptions existed have none, so their calls are described here. */
  describe(call: ToolCall): ApprovalDescription {
    return this.descriptions?.[call.id] ?? describeCall(call, undefined, workflowInfo().workflowId);
  }
}
