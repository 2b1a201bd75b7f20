import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  isCancellation,
  makeContinueAsNewFunc,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import { attachmentsProblem, sentMessageParts, type AttachmentPart, type MessageWithAttachments } from '../core/attachments';
import { failureTypes } from '../core/errors';
import type { TrippedGuardrail } from '../core/guardrails';
import type { ResolvedAgentInput } from '../core/input';
import { maxPromptChars } from '../core/limits';
import { zeroUsage, type Usage } from '../core/usage';
import type { AgentResult, AgentStatus, ApprovalDecision, PendingApproval, TurnReply } from '../core/result';
import type { CoreActivities, RunSetup } from '../activities';
import { questionRule } from '../core/tool-question';
import { withMcpTools } from './mcp/list-tools';
import { observedToolCalls } from '../core/observed-tool-calls';
import { AgentStream } from './agent-stream';
import { Approvals } from './approvals';
import { parseToolArguments } from '../core/tool-arguments';
import {
  approvalDecidedSignal,
  approvalRequestedSignal,
  approvalSettledSignal,
  approveUpdate,
  awaitReplyUpdate,
  conversationQuery,
  denyUpdate,
  endSessionSignal,
  interruptUpdate,
  messagesQuery,
  sendMessageUpdate,
  settingsQuery,
  statusQuery,
  steerUpdate,
} from './definitions';
import { HandOverRule } from './hand-over-rule';
import { IdleClock } from './idle-clock';
import { Inbox, inboxSettlesCallersPatch } from './inbox';
import { runFailure } from './model-call';
import { RunStatus, type StatusSources } from './run-status';
import { carry, checkpoint, initialState, rollBack, type AgentState, type TurnProgress } from './state';
import { Turn, type TurnParts } from './turn';
import { TurnScope } from './turn-scope';
import { prepareRunSummary } from './summaries';
import { carriedRunAttributes, currentBuild, movedToAnotherBuild } from './versioning';
import { WorkflowTools } from './workflow-tools';
import type { TimedWait } from '../core/timed-wait';

/** prepareRun, with the Web UI's summary of what it prepares (every activity the run starts names what it does). */
const prepareRunNamed = (summary: string) =>
  proxyActivities<CoreActivities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 3 }, summary }).prepareRun;

/** The patch that replaced a timer per awaited message with the session's IdleClock. */
export const idleClockPatch = 'session-idle-clock';

/**
 * One run of the agent, read top to bottom: `run` sets the run up, answers the
 * prompt (or the turn a previous run handed over), then, in a session, each
 * message in turn until `endSession` or the idle timeout; it continues as new
 * when a limit of Temporal's is near, and finishes by telling every caller
 * still waiting how the run ended. The run owns its state, its handlers (the
 * queries, updates and signals of workflows/definitions.ts) and its status;
 * a turn (turn.ts) gets the parts it works with and says how it ended.
 */
export class AgentWorkflowRun implements StatusSources {
  private readonly state: AgentState;
  private readonly inbox: Inbox;
  private readonly stream: AgentStream;
  private readonly status: RunStatus;
  private readonly approvals: Approvals;
  private readonly workflowTools: WorkflowTools;
  private readonly handOver: HandOverRule;
  private readonly turnScope = new TurnScope();
  private endRequested: boolean;
  private setup: RunSetup | undefined;
  /** The worker build that prepared this run's setup (its agents and tools), under Worker Versioning. */
  private preparedOn: string | undefined;

  constructor(private readonly input: ResolvedAgentInput) {
    const carried = input.carried;
    this.state = initialState(input);
    // Only a session takes messages, so only a session's history gets the patch's marker.
    this.inbox = new Inbox(carried?.inbox, input.session !== undefined && patched(inboxSettlesCallersPatch));
    this.endRequested = carried?.endRequested ?? false;
    this.stream = new AgentStream(carried?.stream);
    this.status = new RunStatus(input, this, () => this.state.agent);
    this.approvals = new Approvals(input.subagent?.parentWorkflowId, {
      changed: () => this.status.show(),
      asked: (request, input) =>
        this.stream.publish({ type: 'approval_requested', ...request, ...(input !== undefined && { input }) }),
      // The edited arguments stay out of the event: the update that carried them is in history, the call holds them.
      decided: (id, decision, rule) =>
        this.stream.publish({
          type: 'approval_decided',
          id,
          approved: decision.approved,
          ...(!decision.approved && { reason: decision.reason }),
          ...(rule !== undefined && { rule }),
          // A tool's question answered with arguments is an answer, not an edit: the call's own arguments stand.
          ...(decision.approved && decision.arguments !== undefined && rule !== questionRule && { edited: true }),
        }),
    });
    this.approvals.restore(carried?.turn?.openRound?.waiting ?? []);
    // Started here, in the run's first activation: a feature's handlers (an event's update) are set before any arrives.
    this.workflowTools = new WorkflowTools(() => this.status.show());
    this.handOver = new HandOverRule(input, this.inbox, this.stream, this.state);
    this.listen();
  }

  async run(): Promise<AgentResult> {
    try {
      return await this.live();
    } catch (error) {
      if (error instanceof ContinueAsNew) throw error;
      // The run ends here: every caller still waiting learns why instead of waiting forever.
      const reason = isCancellation(error)
        ? 'the run was cancelled before this message was answered'
        : `the run failed before this message was answered: ${(error as Error).message}`;
      this.inbox.close(reason);
      this.inbox.settleAllWaiting(() => ({ refusal: { message: reason, type: failureTypes.messageNotAnswered } }));
      this.stream.detach();
      await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
      throw withSpend(error, this.status.usage);
    }
  }

  // StatusSources: what the status shows that the run's other parts own.
  queuedMessages(): number {
    return this.inbox.waiting.length + this.inbox.steering.length;
  }

  pendingApprovals(): PendingApproval[] {
    return this.approvals.pending();
  }

  waits(): TimedWait[] {
    return this.workflowTools.waits();
  }

  model(): string {
    return this.setup?.agents[this.state.agent].model ?? this.input.model ?? '';
  }

  private async live(): Promise<AgentResult> {
    const { input, state, inbox } = this;
    const setup = await this.prepare();
    const parts: TurnParts = {
      input,
      setup,
      state,
      status: this.status,
      stream: this.stream,
      approvals: this.approvals,
      workflowTools: this.workflowTools,
      handOver: this.handOver,
      turnScope: this.turnScope,
      steering: inbox,
    };

    // The prompt of a new run, or the turn a previous run handed over in the middle.
    const resumed = input.carried?.turn;
    const promptWaiting = !input.carried && state.messages[state.messages.length - 1]?.role === 'user';
    if (resumed || promptWaiting) {
      const start = resumed ?? { ...this.freshTurn(), checkpoint: { ...checkpoint(state), length: state.messages.length - 1 } };
      const reply = await this.answer(parts, start, resumed ? inbox.current : undefined, resumed !== undefined);
      if (!input.session) return this.finish(reply!.status, reply!.guardrail);
      if (reply && spendsTheBudget(reply)) return this.finish(reply.status);
    }

    // A session: each message in turn. Runs recorded before the idle clock waited for each message with a timer of its own.
    const idle = patched(idleClockPatch) ? new IdleClock(input.session!.idleTimeoutSeconds * 1000) : undefined;
    for (;;) {
      this.status.enter('waiting_for_message');
      const wake = () => inbox.hasWaiting() || this.endRequested || this.handOver.due();
      let woke: boolean;
      if (idle) {
        idle.startWaiting();
        await condition(() => wake() || idle.expired);
        idle.stopWaiting();
        woke = wake();
      } else {
        woke = await condition(wake, `${input.session!.idleTimeoutSeconds}s`);
      }
      if (!this.endRequested && this.handOver.due()) return this.continueAsNew();
      // A session moved to a new build (Worker Versioning, docs/upgrades.md) answers its next message there, with
      // that build's agents and tools: its setup is this run's, so it continues as new, carrying the message.
      if (!this.endRequested && inbox.hasWaiting() && movedToAnotherBuild(this.preparedOn)) return this.continueAsNew();
      const start = this.freshTurn();
      const next = inbox.takeNext();
      if (!next) return this.finish(woke ? 'ended' : 'idle_timeout');
      state.messages.push({ role: 'user', content: next.content, ...(next.attachments && { attachments: next.attachments }) });
      const reply = await this.answer(parts, start, next.ticket);
      if (reply && spendsTheBudget(reply)) return this.finish(reply.status);
    }
  }

  /** Tells the agent (prepareRun: its definition, checked, with the run's overrides) and its MCP tools. */
  private async prepare(): Promise<RunSetup> {
    const { input } = this;
    const { model, systemPrompt, tools, maxIterations, modelSettings } = input;
    try {
      this.setup = await prepareRunNamed(prepareRunSummary(input.agent, model))({
        agent: input.agent,
        overrides: { model, systemPrompt, tools, maxIterations, modelSettings },
        workspace: input.workspace,
        budgeted: input.maxCostUsd !== undefined,
        // Checked and expanded (mcp:*, mcp:<server>) by prepareRun and listMcpTools into each agent's approveTools.
        ...(input.approval && { approveTools: input.approval.tools }),
        ...(input.approval?.policy && { policy: input.approval.policy }),
        ...(input.evalTools && { evalTools: input.evalTools.unrecorded }),
      });
    } catch (error) {
      throw runFailure(error);
    }
    this.setup = await withMcpTools(this.setup);
    this.preparedOn = currentBuild();
    return this.setup;
  }

  /**
   * Runs one turn, in a cancellation scope of its own that `interrupt` cancels: the turn then ends `interrupted`
   * and the session goes on. In a session, a turn that fails is rolled back and refused to its caller. A turn
   * handed over continues as new from here.
   */
  private async answer(
    parts: TurnParts,
    start: TurnProgress,
    ticket: number | undefined,
    resumed = false,
  ): Promise<TurnReply | undefined> {
    const { input, state, status, stream, inbox } = this;
    const number = status.turns + 1;
    // A turn resumed after continue-as-new was announced by the run before, whose stream this one carries on.
    if (!resumed) {
      stream.beginTurn();
      stream.publish({ type: 'turn_start', turn: number, agent: state.agent });
    }
    const turn = new Turn(parts, start);
    try {
      const outcome = await this.turnScope.run(
        () => turn.run(),
        () => ({ kind: 'answered', reply: turn.interrupted() }) as const,
      );
      if (outcome.kind === 'hand_over') return await this.continueAsNew(outcome.turn);
      const { reply } = outcome;
      status.turnAnswered();
      stream.publish({
        type: 'turn_end',
        turn: number,
        status: reply.status,
        answer: reply.answer,
        iterations: reply.iterations,
        usage: reply.usage,
        ...(reply.guardrail && { guardrail: reply.guardrail }),
      });
      inbox.answer(ticket, reply);
      return reply;
    } catch (error) {
      if (!input.session || !(error instanceof ApplicationFailure)) throw error;
      rollBack(state, start.checkpoint);
      const { iteration: iterations } = turn.progress;
      stream.publish({
        type: 'turn_end',
        turn: number,
        status: 'failed',
        answer: '',
        error: error.message,
        iterations,
        usage: status.turnUsage,
      });
      inbox.refuse(ticket, error.message, error.type ?? failureTypes.providerRejected);
      return undefined;
    }
  }

  private freshTurn(): TurnProgress {
    return {
      iteration: 0,
      agentIterations: 0,
      handoffs: 0,
      outputRetries: 0,
      usage: zeroUsage,
      checkpoint: checkpoint(this.state),
    };
  }

  /**
   * Every caller still waiting is told to ask the next run, so no update handler is left running; then the
   * conversation, the messages not yet answered and the turn in progress (if any) go on in a new run.
   */
  private async continueAsNew(turn?: TurnProgress): Promise<never> {
    this.inbox.startHandOver();
    this.stream.detach();
    await condition(allHandlersFinished);
    const carried = carry(this.state, this.status, {
      turn,
      inbox: this.inbox.carry(),
      endRequested: this.endRequested,
      stream: this.stream.carry(),
    });
    // The memo and search attributes go on whole (workflows/versioning.ts): the next run is the same session.
    return makeContinueAsNewFunc<(input: ResolvedAgentInput) => Promise<AgentResult>>(carriedRunAttributes())({
      ...this.input,
      prompt: undefined,
      messages: undefined,
      carried,
    });
  }

  private async finish(outcome: AgentStatus, guardrail?: TrippedGuardrail): Promise<AgentResult> {
    const { inbox, state, status } = this;
    inbox.close(`the session has ended (${outcome})`);
    // Only a spent budget ends a session with messages still waiting: they get that answer.
    inbox.settleAllWaiting(() =>
      outcome === 'token_budget' || outcome === 'cost_budget'
        ? { reply: { answer: '', status: outcome, iterations: 0, usage: zeroUsage, agent: state.agent } }
        : {
            refusal: {
              message: `the session ended (${outcome}) before this message was answered`,
              type: failureTypes.messageNotAnswered,
            },
          },
    );
    status.enter('finished');
    this.stream.detach();
    await condition(allHandlersFinished);
    return {
      answer: state.lastAnswer,
      status: outcome,
      iterations: status.iteration,
      usage: status.usage,
      turns: status.turns,
      agent: state.agent,
      ...(state.lastOutput !== undefined && { output: state.lastOutput }),
      ...(guardrail && { guardrail }),
      ...(this.input.reportToolCalls && { toolCalls: observedToolCalls(state.messages, lastUserMessage(state.messages)) }),
    };
  }

  /** The run's queries, updates and signals; the stream registered its own poll handler. */
  private listen(): void {
    const { input, state, inbox, approvals } = this;
    setHandler(messagesQuery, (options) => state.messages.slice(options?.from ?? 0));
    setHandler(conversationQuery, () => {
      const { id, length } = state.transcript;
      return id && length <= state.messages.length
        ? { transcript: { id, length }, messages: state.messages.slice(length) }
        : { messages: state.messages };
    });
    setHandler(settingsQuery, () => {
      // The prompt's attachments go with the prompt: a fork from these settings starts without them.
      const { prompt: _prompt, messages: _messages, carried: _carried, attachments: _attachments, ...settings } = input;
      return { input: settings, agent: state.agent };
    });
    setHandler(statusQuery, () => this.status.snapshot());
    setHandler(endSessionSignal, () => {
      this.endRequested = true;
    });
    setHandler(sendMessageUpdate, (sent) => inbox.outcome(inbox.accept(...messageOf(sent))), {
      validator: (sent) => validateMessage(input, sent, inbox, this.endRequested),
    });
    setHandler(steerUpdate, (sent) => inbox.outcome(inbox.acceptSteering(...messageOf(sent))), {
      validator: (sent) => validateMessage(input, sent, inbox, this.endRequested),
    });
    setHandler(
      awaitReplyUpdate,
      (ticket) => {
        inbox.updatesThisRun++;
        return inbox.outcome(ticket);
      },
      { validator: (ticket) => validateTicket(inbox, ticket) },
    );
    setHandler(
      approveUpdate,
      (target) =>
        decideApprovals(approvals, target?.call, {
          approved: true,
          ...(target?.arguments !== undefined && { arguments: target.arguments }),
        }),
      {
        validator: (target) => {
          validateApprovalTarget(approvals, target?.call);
          const problem = editedArgumentsProblem(target);
          if (problem !== undefined) throw refused(problem);
        },
      },
    );
    setHandler(
      denyUpdate,
      (target) =>
        decideApprovals(approvals, target?.call, {
          approved: false,
          reason: `denied${target?.reason ? `: ${target.reason}` : ' by a person'}`,
        }),
      { validator: (target) => validateApprovalTarget(approvals, target?.call) },
    );
    setHandler(approvalRequestedSignal, ({ from, request }) => approvals.childAsked(from, request, state.agent));
    setHandler(approvalSettledSignal, ({ from, id }) => approvals.childSettled(from, id));
    setHandler(approvalDecidedSignal, (payload) => approvals.decideFromParent(payload));
    setHandler(interruptUpdate, () => this.turnScope.interrupt(), {
      validator: () => {
        if (!this.turnScope.inProgress) throw refused('no turn is in progress to interrupt');
      },
    });
  }
}

/** Where the last user message is: the tool calls after it answered it. */
function lastUserMessage(messages: AgentState['messages']): number {
  for (let index = messages.length - 1; index >= 0; index--) if (messages[index].role === 'user') return index;
  return 0;
}

function decideApprovals(approvals: Approvals, call: string | undefined, decision: ApprovalDecision): string[] {
  const ids = call !== undefined ? [call] : approvals.pending().map((request) => request.id);
  return ids.filter((id) => approvals.decide(id, decision));
}

/** Why edited arguments cannot be taken: they name one call (a decision releases exactly one), as a JSON object. */
function editedArgumentsProblem(target: { call?: string; arguments?: unknown } | undefined): string | undefined {
  if (target?.arguments === undefined) return undefined;
  if (typeof target.arguments !== 'string') return 'edited arguments must be JSON text';
  if (target.call === undefined) return 'edited arguments are for one call: name it';
  if (target.arguments.length > maxEditedArgumentsChars)
    return `edited arguments are ${target.arguments.length} characters; at most ${maxEditedArgumentsChars} are accepted`;
  const parsed = parseToolArguments(target.arguments);
  if (!parsed.ok) return `edited arguments ${parsed.problem}`;
  if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value))
    return 'edited arguments must be a JSON object';
  return undefined;
}

// Room for write_file's largest content, JSON-escaped, within Temporal's 2 MB per payload.
const maxEditedArgumentsChars = 1_500_000;

function validateApprovalTarget(approvals: Approvals, call: unknown): void {
  if (call !== undefined && typeof call !== 'string') throw refused('the call to decide must be named by its id (a string)');
  const problem = approvals.refusal(call);
  if (problem !== undefined) throw refused(problem);
}

/** A budget spent ends the session: no later message could be answered within it. */
function spendsTheBudget(reply: TurnReply): reply is TurnReply & { status: 'token_budget' | 'cost_budget' } {
  return reply.status === 'token_budget' || reply.status === 'cost_budget';
}

function validateMessage(input: ResolvedAgentInput, sent: unknown, inbox: Inbox, ending: boolean): void {
  if (!input.session) throw refused('this run is not a session; start one with `agent chat` (input.session)');
  if (inbox.closedBecause) throw refused(`the session takes no more messages: ${inbox.closedBecause}`);
  if (ending) throw refused('the session is ending and takes no more messages');
  const { content, attachments } = sentMessageParts(sent);
  if (typeof content !== 'string' || !content.trim()) throw refused('message must not be empty');
  if (content.length > maxPromptChars)
    throw refused(`message is ${content.length} characters; at most ${maxPromptChars} are accepted`);
  const attachmentProblem = attachmentsProblem(attachments);
  if (attachmentProblem) throw refused(attachmentProblem);
}

/** A message as the inbox takes it: its text, and its attachments' references when it has any (a validated update). */
function messageOf(sent: string | MessageWithAttachments): [string, AttachmentPart[] | undefined] {
  const { content, attachments } = sentMessageParts(sent);
  return [
    content as string,
    (attachments as AttachmentPart[] | undefined)?.length ? (attachments as AttachmentPart[]) : undefined,
  ];
}

function validateTicket(inbox: Inbox, ticket: unknown): void {
  if (typeof ticket !== 'number' || !inbox.knows(ticket)) {
    throw refused(`no message with ticket ${String(ticket)} is waiting for its reply in this session`);
  }
}

export function refused(message: string): ApplicationFailure {
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
