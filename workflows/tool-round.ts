import { CancellationScope, condition, isCancellation, workflowInfo } from '@temporalio/workflow';
import { describeCall, type ApprovalDescription } from '../core/approval-description';
import type { ToolCall, ToolResultMessage } from '../core/messages';
import { addUsage } from '../core/usage';
import { preview } from '../core/stream-events';
import type { PendingApproval } from '../core/result';
import { notRunResults } from '../core/tool-pairing';
import { runToolCalls, type ToolRound } from './run-tool-calls';
import type { OpenRound, TurnInProgress } from './state';
import { runSubagent } from './subagent-call';
import { approvalToolsOf } from './approval-tools';
import { callsBeyondCap, maxToolCallsPerReply } from './tool-call-cap';
import type { TurnContext } from './turn';

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
}

/**
 * Runs a reply's tool calls and appends their results in the order asked;
 * returns the agent a handoff chose, if any.
 *
 * Calls that need a person's approval wait for it. A round whose only open
 * calls are such waits may last hours: if the run is due to continue as new
 * meanwhile, it does, and the next run finishes the round (the results so far
 * and the waiting requests travel with the turn).
 *
 * If the turn is cancelled (interrupted, or the run cancelled), the calls that
 * finished keep their results and the others get "not run" results before the
 * cancellation goes on, so the conversation can always be continued or forked.
 */
export function runToolRound(
  context: TurnContext,
  round: RoundRequest,
  turn: TurnInProgress,
  options: { maySpawn: boolean; budget: number | undefined },
): Promise<string | undefined> {
  const { input, state, setup } = context;
  const status = state.status;
  const rules = input.approval;
  const finished = new Map((round.finished ?? []).map((result) => [result.toolCallId, result]));
  const asked = new Map((round.waiting ?? []).map((request) => [request.id, request.askedAt]));
  let waiting = 0;
  status.phase = 'running_tools';
  context.showDetails();
  // The agent's approveTools hold the run's names too, selectors expanded; runs recorded before them have the run's names only.
  const approving = approvalToolsOf(setup.agents[state.agent], input);
  const needsApproval = (call: ToolCall) => !rules?.skip && (round.needsApproval.includes(call.id) || approving.includes(call.name));
  // The calls beyond the cap are answered at once, without events of their own: no reply can flood the history.
  const { beyond, reason } = callsBeyondCap(round.calls, maxToolCallsPerReply(input));
  for (const result of notRunResults(beyond, reason)) if (!finished.has(result.toolCallId)) finished.set(result.toolCallId, result);
  const open = round.calls.filter((call) => !finished.has(call.id));
  // Replies recorded before descriptions existed have none: their calls are described here, from the same arguments.
  const describe = (call: ToolCall): ApprovalDescription => round.descriptions?.[call.id] ?? describeCall(call, undefined, workflowInfo().workflowId);

  const settled = (outcome: ToolRound | 'hand over'): Promise<string | undefined> | string | undefined => {
    if (outcome === 'hand over') {
      const openRound: OpenRound = {
        finished: round.calls.flatMap((call) => finished.get(call.id) ?? []),
        needsApproval: round.needsApproval,
        waiting: context.approvals.pending().filter((request) => round.calls.some((call) => call.id === request.id)),
        ...(round.descriptions && { descriptions: round.descriptions }),
      };
      return context.continueAsNew({ ...turn, usage: status.turnUsage, openRound }).catch(failed);
    }
    state.messages.push(...round.calls.map((call) => finished.get(call.id)!));
    return outcome.handoff;
  };
  // The calls that finished keep their results; the others get "not run" results before the cancellation goes on.
  const failed = (error: unknown): never => {
    if (isCancellation(error)) {
      for (const call of round.calls) state.messages.push(finished.get(call.id) ?? notRunResults([call], context.cancelledBecause())[0]);
      status.toolCallsInFlight = [];
    }
    throw error;
  };

  let ran: Promise<ToolRound>;
  try {
    ran = runToolCalls(open, {
      agent: setup.agents[state.agent],
      workspace: input.workspace,
      tools: setup.tools,
      maxConcurrent: input.maxConcurrentTools,
      handoffsLeft: input.maxHandoffs - turn.handoffs,
      needsApproval,
      approve: async (call) => {
        const askedAt = asked.get(call.id) ?? new Date().toISOString();
        asked.set(call.id, askedAt);
        waiting++;
        try {
          const { summary, description } = describe(call);
          return await context.approvals.await({ id: call.id, tool: call.name, summary, description, agents: [state.agent], askedAt }, rules?.timeoutSeconds);
        } finally {
          waiting--;
        }
      },
      ...(options.maySpawn && {
        runSubagent: (request) => {
          const { usage } = status;
          const tokensLeft = input.maxSessionTokens !== undefined ? input.maxSessionTokens - usage.inputTokens - usage.outputTokens : undefined;
          const dollarsLeft = options.budget !== undefined ? options.budget - (usage.costUsd ?? 0) : undefined;
          return runSubagent(input, { ...request, tokensLeft, dollarsLeft });
        },
      }),
      onStart: (summary, call) => {
        context.stream.publish({ type: 'tool_start', id: call.id, summary });
        status.toolCallsInFlight = [...status.toolCallsInFlight, summary];
        context.showDetails();
      },
      onFinish: (summary, result, usage) => {
        finished.set(result.toolCallId, result);
        // A subagent's spend counts at once: the budget checks of calls still running see it.
        status.usage = addUsage(status.usage, usage);
        status.turnUsage = addUsage(status.turnUsage, usage);
        const index = status.toolCallsInFlight.indexOf(summary);
        if (index >= 0) status.toolCallsInFlight = status.toolCallsInFlight.filter((_, position) => position !== index);
        context.stream.publish({ type: 'tool_result', id: result.toolCallId, summary, isError: result.isError, preview: preview(result.content) });
        context.showDetails();
      },
    });
  } catch (error) {
    return Promise.reject(error).then(undefined, failed);
  }

  // Only a round with a call that may wait for a person can be handed over; the others need no watch, and no
  // promises beyond the calls' own (each costs a stack trace in the SDK's promise hook, at every replay too).
  if (!open.some(needsApproval)) return ran.then(settled, failed);
  const handOver = new CancellationScope();
  return Promise.race([ran, handOverDue(handOver)])
    .then(settled, failed)
    .finally(() => handOver.cancel());

  /** Settles when the round should be handed to the next run: due only while nothing runs and no decision is on its way to a waiter, so nothing done is lost. */
  function handOverDue(scope: CancellationScope): Promise<'hand over'> {
    const onlyWaiting = scope.run(() =>
      condition(
        () => waiting > 0 && finished.size + waiting === round.calls.length && !context.approvals.decidedUnseen() && context.continueAsNewDue(),
      ),
    );
    // A cancelled watch never wins the race: a cancelled turn ends when its calls have stopped, as `ran` says.
    return onlyWaiting.then(
      () => 'hand over' as const,
      () => new Promise<never>(() => {}),
    );
  }
}
