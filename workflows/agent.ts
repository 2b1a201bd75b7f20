import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { failureTypes } from '../core/errors';
import type { ResolvedAgentInput } from '../core/input';
import { checkResolvedInput } from '../core/input-check';
import { maxPromptChars } from '../core/limits';
import { zeroUsage, type Usage } from '../core/usage';
import type { AgentResult, AgentStatus, AgentStatusSnapshot, ApprovalDecision, TurnReply } from '../core/result';
import type { CoreActivities, RunSetup } from '../activities';
import { AgentStream } from './agent-stream';
import { Approvals } from './approvals';
import {
  approvalDecidedSignal,
  approvalRequestedSignal,
  approvalSettledSignal,
  approveUpdate,
  awaitReplyUpdate,
  denyUpdate,
  endSessionSignal,
  interruptUpdate,
  conversationQuery,
  messagesQuery,
  sendMessageUpdate,
  settingsQuery,
  statusQuery,
} from './definitions';
import { IdleClock } from './idle-clock';
import { Inbox } from './inbox';
import { withMcpTools } from '../mcp/workflow/list-tools';
import { runFailure } from './model-call';
import { carry, checkpoint, describeStatus, initialState, rollBack, type AgentState, type TurnInProgress } from './state';
import { runTurn, type TurnContext } from './turn';

export { emptyReplyPrompt, reflectionPrompt } from './turn';

const { prepareRun } = proxyActivities<CoreActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 3 },
});

/**
 * Temporal allows 2,000 updates per run (and suggests continue-as-new at 90% of
 * that); a session hands over to a new run well before either. Changing this
 * number changes when runs continue as new: guard such a change with patched().
 */
export const updatesBeforeContinueAsNew = 1_000;

/** The patch that replaced a timer per awaited message with the session's IdleClock. */
export const idleClockPatch = 'session-idle-clock';

/**
 * The durable agent. A one-shot run answers its prompt and ends. A session
 * (`input.session`) then waits for more user messages, each a sendMessage update
 * answered in order, until `endSession` or its idle timeout; a turn that fails
 * fails only its own message. Long runs continue as new, carrying the
 * conversation, counters, settings and the messages not yet answered, in the
 * middle of a turn too.
 */
export async function agentWorkflow(rawInput: ResolvedAgentInput): Promise<AgentResult> {
  const input = validInput(rawInput);
  const state = initialState(input);
  const status = state.status;
  const inbox = new Inbox(input.carried?.inbox);
  let endRequested = input.carried?.endRequested ?? false;
  const stream = new AgentStream(input.carried?.stream);

  setHandler(messagesQuery, (options) => state.messages.slice(options?.from ?? 0));
  setHandler(conversationQuery, () => {
    const { id, length } = state.transcript;
    return id && length <= state.messages.length
      ? { transcript: { id, length }, messages: state.messages.slice(length) }
      : { messages: state.messages };
  });
  setHandler(settingsQuery, () => {
    const { prompt: _prompt, messages: _messages, carried: _carried, ...settings } = input;
    return { input: settings, agent: state.agent };
  });
  // Declared before the handlers that use them; approvals report their changes through the details.
  let setup: RunSetup | undefined;
  const approvals = new Approvals(input.subagent?.parentWorkflowId, {
    changed: () => showDetails(),
    asked: (request) => stream.publish({ type: 'approval_requested', ...request }),
    decided: (id, decision) => stream.publish({ type: 'approval_decided', id, ...decision }),
  });
  approvals.restore(input.carried?.turn?.openRound?.waiting ?? []);
  const turnScope: { scope?: CancellationScope; interrupted: boolean } = { interrupted: false };
  const snapshot = (): AgentStatusSnapshot => {
    const pendingApprovals = approvals.pending();
    const phase = pendingApprovals.length > 0 && status.phase === 'running_tools' ? 'awaiting_approval' : status.phase;
    return { ...status, phase, queuedMessages: inbox.waiting.length, pendingApprovals };
  };
  setHandler(statusQuery, snapshot);
  setHandler(endSessionSignal, () => {
    endRequested = true;
  });
  setHandler(sendMessageUpdate, (content) => inbox.outcome(inbox.accept(content)), {
    validator: (content) => validateMessage(input, content, inbox, endRequested),
  });
  setHandler(
    awaitReplyUpdate,
    (ticket) => {
      inbox.updatesThisRun++;
      return inbox.outcome(ticket);
    },
    { validator: (ticket) => validateTicket(inbox, ticket) },
  );
  setHandler(approveUpdate, (target) => decideApprovals(approvals, target?.call, { approved: true }), {
    validator: (target) => validateApprovalTarget(approvals, target?.call),
  });
  setHandler(
    denyUpdate,
    (target) => decideApprovals(approvals, target?.call, { approved: false, reason: `denied${target?.reason ? `: ${target.reason}` : ' by a person'}` }),
    { validator: (target) => validateApprovalTarget(approvals, target?.call) },
  );
  setHandler(approvalRequestedSignal, ({ from, request }) => approvals.childAsked(from, request, state.agent));
  setHandler(approvalSettledSignal, ({ from, id }) => approvals.childSettled(from, id));
  setHandler(approvalDecidedSignal, (payload) => approvals.decideFromParent(payload));
  setHandler(
    interruptUpdate,
    () => {
      turnScope.interrupted = true;
      turnScope.scope?.cancel();
    },
    {
      validator: () => {
        if (!turnScope.scope) throw refused('no turn is in progress to interrupt');
      },
    },
  );
  const showDetails = () => setCurrentDetails(describeStatus(input, snapshot(), setup?.agents[state.agent].model ?? input.model ?? ''));

  const continueAsNewDue = () =>
    workflowInfo().continueAsNewSuggested ||
    inbox.updatesThisRun >= updatesBeforeContinueAsNew ||
    stream.continueAsNewDue() ||
    (input.continueAsNewAfterModelCalls !== undefined && state.modelCallsThisRun >= input.continueAsNewAfterModelCalls);
  // Every caller still waiting is told to ask the next run, so no update handler is left running; then the
  // conversation, the messages not yet answered and the turn in progress (if any) go on in a new run.
  const continueAsNewNow = async (turn?: TurnInProgress): Promise<never> => {
    inbox.startHandOver();
    stream.detach();
    await condition(allHandlersFinished);
    const next: ResolvedAgentInput = {
      ...input,
      prompt: undefined,
      messages: undefined,
      carried: carry(state, { turn, inbox: inbox.carry(), endRequested, stream: stream.carry() }),
    };
    return continueAsNew<typeof agentWorkflow>(next);
  };

  const finish = async (outcome: AgentStatus): Promise<AgentResult> => {
    inbox.close(`the session has ended (${outcome})`);
    // Only a spent budget ends a session with messages still waiting: they get that answer.
    inbox.settleAllWaiting(() =>
      outcome === 'token_budget' || outcome === 'cost_budget'
        ? { reply: { answer: '', status: outcome, iterations: 0, usage: zeroUsage, agent: state.agent } }
        : { refusal: { message: `the session ended (${outcome}) before this message was answered`, type: failureTypes.messageNotAnswered } },
    );
    status.phase = 'finished';
    showDetails();
    stream.detach();
    await condition(allHandlersFinished);
    return {
      answer: state.lastAnswer,
      status: outcome,
      iterations: status.iteration,
      usage: status.usage,
      turns: status.turns,
      agent: state.agent,
      ...(state.lastOutput !== undefined && { output: state.lastOutput }),
    };
  };

  const live = async (): Promise<AgentResult> => {
    const { model, systemPrompt, tools, maxIterations, modelSettings } = input;
    setup = await prepareRun({
      agent: input.agent,
      overrides: { model, systemPrompt, tools, maxIterations, modelSettings },
      workspace: input.workspace,
      budgeted: input.maxCostUsd !== undefined,
      // Checked and expanded (mcp:*, mcp:<server>) by prepareRun and listMcpTools into each agent's approveTools.
      ...(input.approval && { approveTools: input.approval.tools }),
    }).catch((error: unknown) => {
      throw runFailure(error);
    });
    setup = await withMcpTools(setup);
    const context: TurnContext = {
      input,
      state,
      setup,
      approvals,
      stream,
      cancelledBecause: () => (turnScope.interrupted ? 'the turn was interrupted' : 'the run was cancelled'),
      showDetails,
      continueAsNewDue,
      continueAsNew: continueAsNewNow,
    };

    /**
     * Runs one turn, in a cancellation scope of its own that `interrupt` cancels: the turn then ends `interrupted`
     * and the session goes on. In a session, a turn that fails is rolled back and refused to its caller.
     */
    const answer = async (start: TurnInProgress, ticket: number | undefined, resumed = false): Promise<TurnReply | undefined> => {
      const turn = status.turns + 1;
      // A turn resumed after continue-as-new was announced by the run before, whose stream this one carries on.
      if (!resumed) {
        stream.beginTurn();
        stream.publish({ type: 'turn_start', turn, agent: state.agent });
      }
      const iterationsBefore = status.iteration - start.iteration;
      try {
        const reply = await runInterruptible(start);
        status.turns++;
        stream.publish({ type: 'turn_end', turn, status: reply.status, answer: reply.answer, iterations: reply.iterations, usage: reply.usage });
        if (ticket !== undefined) inbox.answer(ticket, reply);
        return reply;
      } catch (error) {
        if (!input.session || !(error instanceof ApplicationFailure)) throw error;
        rollBack(state, start.checkpoint);
        const iterations = status.iteration - iterationsBefore;
        stream.publish({ type: 'turn_end', turn, status: 'failed', answer: '', error: error.message, iterations, usage: status.turnUsage });
        if (ticket !== undefined) inbox.refuse(ticket, error.message, error.type ?? failureTypes.providerRejected);
        return undefined;
      }
    };
    const runInterruptible = async (start: TurnInProgress): Promise<TurnReply> => {
      const scope = new CancellationScope();
      turnScope.scope = scope;
      try {
        return await scope.run(() => runTurn(context, start));
      } catch (error) {
        if (!(turnScope.interrupted && isCancellation(error))) throw error;
        return interruptedReply(state, start);
      } finally {
        turnScope.scope = undefined;
        turnScope.interrupted = false;
      }
    };
    const freshTurn = (): TurnInProgress => ({
      iteration: 0,
      agentIterations: 0,
      handoffs: 0,
      outputRetries: 0,
      usage: zeroUsage,
      checkpoint: checkpoint(state),
    });

    const resumed = input.carried?.turn;
    const promptWaiting = !input.carried && state.messages[state.messages.length - 1]?.role === 'user';
    if (resumed || promptWaiting) {
      const start = resumed ?? { ...freshTurn(), checkpoint: { ...checkpoint(state), length: state.messages.length - 1 } };
      const reply = await answer(start, resumed ? inbox.current : undefined, resumed !== undefined);
      if (!input.session) return finish(reply!.status);
      if (reply && spendsTheBudget(reply)) return finish(reply.status);
    }

    // Runs recorded before the idle clock waited for each message with a timer of its own.
    const idle = patched(idleClockPatch) ? new IdleClock(input.session!.idleTimeoutSeconds * 1000) : undefined;
    for (;;) {
      status.phase = 'waiting_for_message';
      showDetails();
      const wake = () => inbox.waiting.length > 0 || endRequested || continueAsNewDue();
      let woke: boolean;
      if (idle) {
        idle.startWaiting();
        await condition(() => wake() || idle.expired);
        idle.stopWaiting();
        woke = wake();
      } else {
        woke = await condition(wake, `${input.session!.idleTimeoutSeconds}s`);
      }
      if (!endRequested && continueAsNewDue()) await continueAsNewNow();
      const start = freshTurn();
      const next = inbox.takeNext();
      if (!next) return finish(woke ? 'ended' : 'idle_timeout');
      state.messages.push({ role: 'user', content: next.content });
      const reply = await answer(start, next.ticket);
      if (reply && spendsTheBudget(reply)) return finish(reply.status);
    }
  };

  try {
    return await live();
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    // The run ends here: every caller still waiting learns why instead of waiting forever.
    const reason = isCancellation(error)
      ? 'the run was cancelled before this message was answered'
      : `the run failed before this message was answered: ${(error as Error).message}`;
    inbox.close(reason);
    inbox.settleAllWaiting(() => ({ refusal: { message: reason, type: failureTypes.messageNotAnswered } }));
    stream.detach();
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    throw withSpend(error, status.usage);
  }
}

/** What an interrupted turn replies: its last answer so far (if any), and what it spent. */
function interruptedReply(state: AgentState, start: TurnInProgress): TurnReply {
  const sinceStart = state.messages.slice(start.checkpoint.length);
  const answer = [...sinceStart].reverse().find((message) => message.role === 'assistant')?.content ?? '';
  const iterations = start.iteration + sinceStart.filter((message) => message.role === 'assistant').length;
  state.lastAnswer = answer;
  state.status.phase = 'waiting_for_message';
  state.status.toolCallsInFlight = [];
  return { answer, status: 'interrupted', iterations, usage: state.status.turnUsage, agent: state.agent };
}

function decideApprovals(approvals: Approvals, call: string | undefined, decision: ApprovalDecision): string[] {
  const ids = call !== undefined ? [call] : approvals.pending().map((request) => request.id);
  return ids.filter((id) => approvals.decide(id, decision));
}

function validateApprovalTarget(approvals: Approvals, call: unknown): void {
  if (call !== undefined && typeof call !== 'string') throw refused('the call to decide must be named by its id (a string)');
  const problem = approvals.refusal(call);
  if (problem !== undefined) throw refused(problem);
}

/** A budget spent ends the session: no later message could be answered within it. */
function spendsTheBudget(reply: TurnReply): reply is TurnReply & { status: 'token_budget' | 'cost_budget' } {
  return reply.status === 'token_budget' || reply.status === 'cost_budget';
}

function validateMessage(input: ResolvedAgentInput, content: unknown, inbox: Inbox, ending: boolean): void {
  if (!input.session) throw refused('this run is not a session; start one with `agent chat` (input.session)');
  if (inbox.closedBecause) throw refused(`the session takes no more messages: ${inbox.closedBecause}`);
  if (ending) throw refused('the session is ending and takes no more messages');
  if (typeof content !== 'string' || !content.trim()) throw refused('message must not be empty');
  if (content.length > maxPromptChars) throw refused(`message is ${content.length} characters; at most ${maxPromptChars} are accepted`);
}

function validateTicket(inbox: Inbox, ticket: unknown): void {
  if (typeof ticket !== 'number' || !inbox.knows(ticket)) {
    throw refused(`no message with ticket ${String(ticket)} is waiting for its reply in this session`);
  }
}

function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: failureTypes.messageRefused, message, nonRetryable: true });
}

/**
 * A failed run still reports what it spent, in its failure's details, so a
 * parent that ran it as a subagent counts those tokens too.
 */
function withSpend(error: unknown, usage: Usage): unknown {
  if (!(error instanceof ApplicationFailure) || error.details?.length) return error;
  return ApplicationFailure.create({
    type: error.type ?? undefined,
    message: error.message,
    nonRetryable: Boolean(error.nonRetryable),
    cause: error.cause,
    details: [{ usage }],
  });
}

function validInput(rawInput: ResolvedAgentInput): ResolvedAgentInput {
  const check = checkResolvedInput(rawInput);
  if (!check.ok) {
    throw ApplicationFailure.create({
      type: failureTypes.invalidInput,
      message: `invalid agent input: ${check.problems}`,
      nonRetryable: true,
    });
  }
  return check.input;
}
