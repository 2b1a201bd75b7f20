import { workflowInfo } from '@temporalio/workflow';
import { argumentsText, describeCall, type ApprovalDescription } from '../core/approval-description';
import type { ApprovalPolicy } from '../core/agent-spec';
import { defaultRuleName, evaluatePolicy, type PolicyDecision } from '../core/approval-policy';
import type { ToolCall, ToolResultMessage } from '../core/messages';
import type { PendingApproval } from '../core/result';
import type { TimedWait } from '../core/timed-wait';
import { parseToolArguments } from '../core/tool-arguments';
import { withPathsShown } from '../core/workspace-path';

/** What the round's calls are decided by: the agent's policy (the run's rules first), and who the run is for. */
export interface RoundPolicy {
  policy: ApprovalPolicy | undefined;
  /** Path arguments per tool (the run's setup). */
  paths: (tool: string) => readonly string[];
  workspace: string;
  principal?: string;
  tenant?: string;
}

/**
 * What one tool round knows of its calls while they run: the results so far
 * (a previous run's too, after continue-as-new), how each call is decided
 * (allowed, asked or refused, and by which rule) and how each that asks is
 * described, when each first asked, and how many wait for a decision now.
 */
export class RoundLedger {
  readonly finished: Map<string, ToolResultMessage>;
  private readonly asked: Map<string, string>;
  /** The waits in the workflow (time/) an earlier run began, by call id: they wait on, approved already. */
  private readonly carriedWaits: Map<string, TimedWait>;
  private readonly decisions = new Map<string, PolicyDecision>();
  /** Calls waiting for a person's decision right now. */
  waiting = 0;

  constructor(
    /** The ids the tools' own rules want approved (decided by the model activity). */
    private readonly approvalIds: string[],
    /** The tools whose every call is approved in this run (workflows/approval-tools.ts); none when approvals are skipped. */
    private readonly approvalTools: string[] | 'skip',
    /** How each call that asks is shown; a call whose arguments a person edited gets a new one here. */
    readonly descriptions: Record<string, ApprovalDescription> | undefined,
    earlier: { finished?: ToolResultMessage[]; waiting?: PendingApproval[]; waits?: TimedWait[] },
    private readonly policy: RoundPolicy,
  ) {
    this.finished = new Map((earlier.finished ?? []).map((result) => [result.toolCallId, result]));
    this.asked = new Map((earlier.waiting ?? []).map((request) => [request.id, request.askedAt]));
    this.carriedWaits = new Map((earlier.waits ?? []).map((wait) => [wait.callId, wait]));
  }

  /** A call that was waiting in the workflow when the run continued as new was approved (if it had to be) before it began. */
  needsApproval(call: ToolCall): boolean {
    return !this.carriedWaits.has(call.id) && this.decide(call).action === 'ask';
  }

  /** The wait an earlier run began for this call, if it continued as new in the middle of it. */
  carriedWait(id: string): TimedWait | undefined {
    return this.carriedWaits.get(id);
  }

  /**
   * How the call is decided, once per arguments: the policy's rules first (a `deny` holds even with approvals
   * skipped); a call no rule matches asks when its tool's own rule or the approval list says so, and otherwise
   * goes by the policy's default. Skipped approvals (`--yes`) turn every `ask` into `allow`, naming the same rule.
   */
  decide(call: ToolCall): PolicyDecision {
    const key = `${call.id}\0${call.arguments}`;
    const known = this.decisions.get(key);
    if (known) return known;
    const parsed = parseToolArguments(call.arguments);
    const { policy, paths, workspace, principal, tenant } = this.policy;
    const byPolicy = evaluatePolicy(policy, {
      tool: call.name,
      args: parsed.ok ? parsed.value : undefined,
      paths: paths(call.name),
      workspace,
      ...(principal !== undefined && { principal }),
      ...(tenant !== undefined && { tenant }),
    });
    const byLists: PolicyDecision | undefined =
      byPolicy.rule !== defaultRuleName || this.approvalTools === 'skip'
        ? undefined
        : this.approvalIds.includes(call.id)
          ? { action: 'ask', rule: 'needsApproval' }
          : this.approvalTools.includes(call.name)
            ? { action: 'ask', rule: 'approveTools' }
            : undefined;
    const decided = byLists ?? byPolicy;
    const decision: PolicyDecision =
      decided.action === 'ask' && this.approvalTools === 'skip' ? { ...decided, action: 'allow' } : decided;
    this.decisions.set(key, decision);
    return decision;
  }

  /** When the call first asked (now, unless a previous run asked already): its timeout runs from then. */
  askedAt(id: string): string {
    const askedAt = this.asked.get(id) ?? new Date().toISOString();
    this.asked.set(id, askedAt);
    return askedAt;
  }

  /** What a person is shown; replies recorded before descriptions existed have none, so their calls are described here. */
  describe(call: ToolCall): ApprovalDescription {
    return this.descriptions?.[call.id] ?? this.describeHere(call);
  }

  /**
   * A person edited the call's arguments: it is described anew from them (the tool's own description was the model
   * activity's, of the model's arguments), and that description is the one carried if the round is handed over.
   */
  edited(call: ToolCall): ApprovalDescription {
    const description = this.describeHere(call);
    if (this.descriptions) this.descriptions[call.id] = description;
    return description;
  }

  /** A call described in the workflow: its arguments as canonical JSON, its path arguments as the tool will open them. */
  private describeHere(call: ToolCall): ApprovalDescription {
    const parsed = parseToolArguments(call.arguments);
    const paths = this.policy.paths(call.name);
    const text =
      parsed.ok && paths.length > 0
        ? argumentsText(call.name, withPathsShown(parsed.value, paths, this.policy.workspace))
        : undefined;
    return describeCall(call, text, workflowInfo().workflowId);
  }
}
