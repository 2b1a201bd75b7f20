import { CancellationScope, condition, isCancellation, workflowInfo } from '@temporalio/workflow';
import { runOwnerMemoField } from '../core/approval-policy';
import type { ApprovalDescription } from '../core/approval-description';
import type { ToolCall, ToolResultMessage } from '../core/messages';
import type { PendingApproval } from '../core/result';
import type { TimedWait } from '../core/timed-wait';
import { notRunResults } from '../core/tool-pairing';
import { runToolCalls, type CallGuard, type CallsSetting, type ToolRound } from './run-tool-calls';
import type { TrippedGuardrail } from '../core/guardrails';
import type { OpenRound } from './state';
import { approvalToolsOf } from './approval-tools';
import { callsBeyondCap, maxToolCallsPerReply } from './tool-call-cap';
import { RoundLedger } from './round-ledger';
import type { TurnParts } from './turn';

/** The tool calls of one model reply, and what is already known of them. */
export interface RoundRequest {
  calls: ToolCall[];
  /** The calls the tools' own rules want approved (decided by the model activity). */
  needsApproval: string[];
  /** What a person is shown for each call that asks, built by the model activity from the real arguments. */
  descriptions?: Record<string, ApprovalDescription>;
  /** Results from before a continue-as-new. */
  finished?: ToolResultMessage[];
  /** Approvals a previous run was waiting on. */
  waiting?: PendingApproval[];
  /** Waits in the workflow (time/) a previous run was in. */
  waits?: TimedWait[];
}

/** How a round ended: every call answered (and the agent a handoff chose, if any), or handed to the next run while it waits for people. */
export type RoundOutcome =
  { kind: 'answered'; handoff?: string; guardrail?: TrippedGuardrail } | { kind: 'hand_over'; openRound: OpenRound };

/**
 * Runs a reply's tool calls and appends their results in the order asked.
 *
 * Calls that need a person's approval wait for it. A round whose only open
 * calls are such waits may last hours: if the run is due to continue as new
 * meanwhile, the round says so (`hand_over`), with the results so far and the
 * waiting requests, and the next run finishes it.
 *
 * If the turn is cancelled (interrupted, or the run cancelled), the calls that
 * finished keep their results and the others get "not run" results before the
 * cancellation goes on, so the conversation can always be continued or forked.
 */
export function runToolRound(
  parts: TurnParts,
  round: RoundRequest,
  handoffsLeft: number,
  options: { maySpawn: boolean; budget: number | undefined; callGuard?: CallGuard },
): Promise<RoundOutcome> {
  const { input, state, setup, status } = parts;
  const agent = setup.agents[state.agent];
  // The agent's approveTools hold the run's names too, selectors expanded; runs recorded before them have the run's names only.
  const ledger = new RoundLedger(
    round.needsApproval,
    input.approval?.skip ? 'skip' : approvalToolsOf(agent, input),
    round.descriptions,
    round,
    {
      policy: agent.policy,
      paths: (tool) => setup.tools[tool]?.paths ?? [],
      workspace: input.workspace,
      ...runParties(),
    },
  );
  status.enter('running_tools');
  // The calls beyond the cap are answered at once, without events of their own: no reply can flood the history.
  const { beyond, reason } = callsBeyondCap(round.calls, maxToolCallsPerReply(input));
  for (const result of notRunResults(beyond, reason))
    if (!ledger.finished.has(result.toolCallId)) ledger.finished.set(result.toolCallId, result);
  const open = round.calls.filter((call) => !ledger.finished.has(call.id));
  const setting: CallsSetting = { ...parts, agent, ledger, handoffsLeft, ...options };

  const answered = (outcome: ToolRound): RoundOutcome => {
    state.messages.push(...round.calls.map((call) => ledger.finished.get(call.id)!));
    // A tool-call guardrail that ends the turn ends it once the round's calls all have results.
    const guardrail = options.callGuard?.endedBy;
    return {
      kind: 'answered',
      ...(outcome.handoff !== undefined && { handoff: outcome.handoff }),
      ...(guardrail && { guardrail }),
    };
  };
  // The calls that finished keep their results; the others get "not run" results before the cancellation goes on.
  const stopped = (error: unknown): never => {
    if (isCancellation(error)) {
      for (const call of round.calls)
        state.messages.push(ledger.finished.get(call.id) ?? notRunResults([call], parts.turnScope.cancelledBecause())[0]);
      status.toolsStopped();
    }
    throw error;
  };

  // `then` on the calls' promise, not async/await: every promise a workflow makes costs a stack trace in the SDK's
  // promise hook, live and at every replay, and a round runs on every iteration (bench/NOTES.md).
  let ran: Promise<ToolRound>;
  try {
    ran = runToolCalls(open, setting);
  } catch (error) {
    return Promise.reject(error).then(undefined, stopped);
  }
  // Only a round with a call that may wait (for a person, or in the workflow: a timer, an event) can be handed over;
  // the others need no watch.
  const mayWait = (call: ToolCall) => ledger.needsApproval(call) || setup.tools[call.name]?.inWorkflow !== undefined;
  if (!open.some(mayWait)) return ran.then(answered, stopped);
  const handOver = new CancellationScope();
  const handedOver = (): RoundOutcome => {
    const waits = parts.workflowTools.handOver(round.calls.map((call) => call.id));
    return {
      kind: 'hand_over',
      openRound: {
        finished: round.calls.flatMap((call) => ledger.finished.get(call.id) ?? []),
        needsApproval: round.needsApproval,
        waiting: parts.approvals.pending().filter((request) => round.calls.some((call) => call.id === request.id)),
        ...(ledger.descriptions && { descriptions: ledger.descriptions }),
        ...(waits.length > 0 && { waits }),
      },
    };
  };
  return Promise.race([ran, handOverDue(handOver, parts, ledger, round.calls.length, options.callGuard)]).then(
    (outcome) => {
      const ended = outcome === 'hand over' ? handedOver() : answered(outcome);
      handOver.cancel();
      return ended;
    },
    (error: unknown) => {
      try {
        return stopped(error);
      } finally {
        handOver.cancel();
      }
    },
  );
}

/**
 * Settles when the round should be handed to the next run: due only while nothing runs and no decision or event is
 * on its way to a waiter, so nothing done is lost. A cancelled watch never wins the race: a cancelled turn ends when its
 * calls have stopped, as the calls' own promise says.
 */
async function handOverDue(
  scope: CancellationScope,
  parts: TurnParts,
  ledger: RoundLedger,
  calls: number,
  callGuard: CallGuard | undefined,
): Promise<'hand over'> {
  try {
    await scope.run(() =>
      condition(
        () =>
          ledger.waiting > 0 &&
          ledger.finished.size + ledger.waiting === calls &&
          !parts.approvals.decidedUnseen() &&
          !parts.workflowTools.settling() &&
          // A guardrail that ended the turn is this run's to report: the round is not carried without it.
          !callGuard?.endedBy &&
          parts.handOver.due(),
      ),
    );
  } catch {
    return new Promise<never>(() => {});
  }
  return 'hand over';
}

/** Who the run is for, as a policy's `principals` and `tenants` see it: the owner its memo records, its fairness key. */
function runParties(): { principal?: string; tenant?: string } {
  const { memo, priority } = workflowInfo();
  const owner = memo?.[runOwnerMemoField];
  return {
    ...(typeof owner === 'string' && { principal: owner }),
    ...(priority?.fairnessKey && { tenant: priority.fairnessKey }),
  };
}
