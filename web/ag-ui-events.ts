import {
  EventType,
  type BaseEvent,
  type Interrupt,
  type RunErrorEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
  type TokenUsage,
} from '@ag-ui/core';
import type { PendingApproval } from '../core/result';
import type { AgentEvent } from '../core/stream-events';
import { addUsage, type Usage } from '../core/usage';
import { opensSteeredResponse, type StartAfter, type TurnTranslator } from './turn-response';

/**
 * The AG-UI face of a run's story: one AG-UI run is one turn of a session (the thread), or the part of a turn up to an
 * approval, which ends the AG-UI run with an interrupt that the next run answers (`resume`). This file only translates
 * our one event vocabulary (core/stream-events.ts); it reads nothing and sends nothing, so the translation is the
 * same whoever follows the stream.
 */

/** Where this translation's events belong: the session is the thread, each request to run it an AG-UI run. */
export interface AgUiRunIds {
  threadId: string;
  runId: string;
}

/** The reason an interrupt of ours gives: a tool call waits for a person's approval. */
export const toolApprovalReason = 'tool_approval';

/** Our names for what AG-UI has no event of its own for, sent as CUSTOM events. */
export const agUiCustomNames = {
  /** A retried model call starts its text over: drop `value.messageId`, the new attempt writes a new message. */
  textReset: 'durable-agent.text_reset',
  /** A person (or the approval timeout) decided on a tool call. */
  approvalDecided: 'durable-agent.approval_decided',
  /** The conversation moved to another agent. */
  handoff: 'durable-agent.handoff',
  /** A model call failed and is tried again: `value` has the attempt, the provider's host, the error and the wait. */
  modelRetry: 'durable-agent.model_retry',
  /** A tool call waits in the workflow: `value` has the call, the event if any, the reason, and when it began and ends. */
  waiting: 'durable-agent.waiting',
} as const;

/** The answer an approval interrupt expects in its resume entry's payload. */
export const approvalResponseSchema = {
  type: 'object',
  properties: {
    approved: { type: 'boolean' },
    reason: { type: 'string', description: 'Why not, when denied: the model reads it.' },
    editedArgs: {
      type: 'object',
      description: "When approved: run the call with these arguments instead of the model's (checked like the model's).",
    },
  },
  required: ['approved'],
};

/** Metadata key for what only durable-agent knows (AG-UI reserves `ag-ui`). */
const ownKey = 'durable-agent';

export function runStarted(ids: AgUiRunIds): RunStartedEvent {
  return { type: EventType.RUN_STARTED, threadId: ids.threadId, runId: ids.runId, timestamp: Date.now() };
}

/** An AG-UI run that ends waiting for people: one interrupt per tool call that waits, with what will really run. */
export function runInterrupted(ids: AgUiRunIds, approvals: PendingApproval[], usage: TokenUsage[] = []): RunFinishedEvent {
  return {
    type: EventType.RUN_FINISHED,
    threadId: ids.threadId,
    runId: ids.runId,
    timestamp: Date.now(),
    outcome: { type: 'interrupt', interrupts: approvals.map(interruptOf) },
    ...(usage.length > 0 && { usage }),
  };
}

function interruptOf(approval: PendingApproval): Interrupt {
  return {
    id: approval.id,
    reason: toolApprovalReason,
    // The description is built from the arguments that will run, hidden characters made visible (core/approval-description.ts).
    message: approval.description ?? approval.summary,
    toolCallId: approval.id,
    responseSchema: approvalResponseSchema,
    metadata: {
      [ownKey]: {
        tool: approval.tool,
        summary: approval.summary,
        agents: approval.agents,
        askedAt: approval.askedAt,
        ...(approval.rule !== undefined && { rule: approval.rule }),
        ...(approval.edited && { edited: true }),
      },
    },
  };
}

/**
 * Translates one turn's stream events, in order, into AG-UI events. Stateful because AG-UI opens and closes what our
 * vocabulary states whole: a model call's text is a message opened at its first text, closed by its reply.
 *
 * With `startAfter`, the events before this run's own (the previous turn's, or the interrupted run's, which its
 * client has shown) are read for what they tell (which calls the client has seen, which approvals wait) but not sent.
 * Without it, every event is this run's.
 */
export class AgUiTranslator implements TurnTranslator<BaseEvent> {
  private readonly openMessages = new Map<string, string>();
  /** Each model call's reasoning span open while its thinking streams. */
  private readonly openReasoning = new Map<string, { span: string; message: string }>();
  /** Each model call's thinking streamed so far (this attempt), and the reasoning message that told it. */
  private readonly thoughtSoFar = new Map<string, { text: string; message: string }>();
  private readonly attempts = new Map<string, number>();
  /** Reasoning spans opened per model call: thinking and text may alternate in one reply, and ids are never reused. */
  private readonly spans = new Map<string, number>();
  private readonly usageByModel = new Map<string, Usage>();
  private readonly pending = new Map<string, PendingApproval>();
  /**
   * Tool calls started in this run: each once, and always before its result, in the run that carries the result
   * (an AG-UI client pairs them within a run; a denied call has no tool_start, only its approval request).
   */
  private readonly shownCalls = new Set<string>();
  /** What an approval request told of its call (seen in this run or before it): a denied call's start is built from it. */
  private readonly askedCalls = new Map<string, { name: string; input: { value: unknown } | undefined }>();
  /** The message of the model call whose reply asked for the tools now starting, for TOOL_CALL_START's parent. */
  private lastReplyMessage: string | undefined;
  private finished = false;
  private emitting: boolean;
  /** Steering messages told so far: each user message's id is its own. */
  private steerings = 0;
  private readonly awaiting: Set<string>;

  constructor(
    private readonly ids: AgUiRunIds,
    private readonly startAfter?: StartAfter,
  ) {
    this.emitting = startAfter === undefined;
    this.awaiting = new Set(startAfter?.kind === 'approvals' ? startAfter.calls : []);
  }

  /** Approvals requested and not yet decided, in the order they were asked: what an interrupt ends this run with. */
  get pendingApprovals(): PendingApproval[] {
    return [...this.pending.values()];
  }

  get waitingApprovals(): number {
    return this.pending.size;
  }

  /** Whether the turn ended (RUN_FINISHED or RUN_ERROR was given). */
  get ended(): boolean {
    return this.finished;
  }

  /** The run's token usage so far, one entry per model, in AG-UI's accounting. */
  get usage(): TokenUsage[] {
    return [...this.usageByModel].map(([model, usage]) => tokenUsageOf(model, usage));
  }

  opening(): BaseEvent[] {
    return [runStarted(this.ids)];
  }

  /** The run ends waiting for people: one interrupt per approval that waits (all of them, when `pending` is known). */
  pause(pending: PendingApproval[] | undefined): BaseEvent[] {
    this.finished = true;
    return [runInterrupted(this.ids, pending && pending.length > 0 ? pending : this.pendingApprovals, this.usage)];
  }

  abandon(reason: string, code: 'session_ended' | 'follow_failed'): BaseEvent[] {
    this.finished = true;
    return [{ type: EventType.RUN_ERROR, message: reason, code, timestamp: Date.now() } as BaseEvent];
  }

  translate(event: AgentEvent): BaseEvent[] {
    if (this.finished) return [];
    if (!this.emitting) {
      if (this.startAfter?.kind === 'turn_start' && event.type === 'turn_start') this.emitting = true;
      else if (this.startAfter?.kind === 'steered' && opensSteeredResponse(event, this.startAfter.turn)) {
        this.emitting = true;
        // The steering message that opens this run is the client's own message: the run goes on after it.
        if (event.type === 'steered') return [];
      } else {
        this.learn(event);
        return [];
      }
    }
    switch (event.type) {
      case 'turn_start':
        return [];
      case 'text':
        return [...this.closeReasoning(event.call), ...this.text(event.call, event.text)];
      case 'thinking':
        return this.thinking(event.call, event.text);
      case 'reset':
        return this.reset(event.call, event.attempt);
      case 'reply':
        return this.reply(event);
      case 'tool_start':
        // Since 0.3 the event names the tool and carries its arguments; an older one's summary starts with the name.
        return this.startCall(
          event.id,
          event.name ?? toolNameOf(event.summary),
          'input' in event ? { value: event.input } : undefined,
        );
      case 'tool_result': {
        // A call that never ran (denied, or its approval timed out) has no tool_start: its start comes from its request.
        const asked = this.askedCalls.get(event.id);
        return [
          ...this.startCall(event.id, asked?.name ?? toolNameOf(event.summary), asked?.input),
          {
            type: EventType.TOOL_CALL_RESULT,
            messageId: `${event.id}:result`,
            toolCallId: event.id,
            role: 'tool',
            content: event.preview,
            ...(event.isError && { metadata: { [ownKey]: { isError: true } } }),
          } as BaseEvent,
        ];
      }
      case 'approval_requested':
        // Told in the interrupt that ends the run; the call itself starts in the run that carries its result.
        this.ask(event);
        return [];
      case 'approval_decided':
        this.pending.delete(event.id);
        return [
          this.custom(agUiCustomNames.approvalDecided, {
            toolCallId: event.id,
            approved: event.approved,
            reason: event.reason,
            ...(event.rule !== undefined && { rule: event.rule }),
            ...(event.edited && { edited: true }),
          }),
        ];
      case 'handoff':
        return [this.custom(agUiCustomNames.handoff, { from: event.from, to: event.to })];
      case 'waiting': {
        const { type: _type, ...wait } = event;
        return [this.custom(agUiCustomNames.waiting, wait)];
      }
      case 'steered': {
        // A person's steering message joined the turn: a user message where it joined, as AG-UI tells messages.
        const messageId = `${this.ids.runId}:steered:${event.turn}:${event.iteration}:${++this.steerings}`;
        return [
          { type: EventType.TEXT_MESSAGE_START, messageId, role: 'user' } as BaseEvent,
          { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: event.text } as BaseEvent,
          { type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent,
        ];
      }
      case 'model_retry': {
        const { type: _type, ...retry } = event;
        return [this.custom(agUiCustomNames.modelRetry, retry)];
      }
      case 'turn_end':
        return this.turnEnd(event);
      default: {
        // A newer worker's event this code does not know: AG-UI clients are told nothing rather than something wrong.
        const _exhaustive: never = event;
        void _exhaustive;
        return [];
      }
    }
  }

  /** An event before this run's own: which approvals were asked (and what of) counts, nothing is sent. */
  private learn(event: AgentEvent): void {
    if (event.type === 'approval_requested') {
      this.ask(event);
      if (this.startAfter?.kind === 'approvals' && this.awaiting.delete(event.id)) this.emitting = this.awaiting.size === 0;
    } else if (event.type === 'approval_decided') this.pending.delete(event.id);
  }

  private ask(event: Extract<AgentEvent, { type: 'approval_requested' }>): void {
    const { type: _type, input, ...approval } = event;
    this.pending.set(approval.id, approval);
    this.askedCalls.set(event.id, { name: event.tool, input: input === undefined ? undefined : { value: input } });
  }

  /** TOOL_CALL_START, its arguments as JSON in one piece (as the stream bounds them) and TOOL_CALL_END, once per call. */
  private startCall(id: string, name: string, input: { value: unknown } | undefined): BaseEvent[] {
    if (this.shownCalls.has(id)) return [];
    this.shownCalls.add(id);
    return [
      {
        type: EventType.TOOL_CALL_START,
        toolCallId: id,
        toolCallName: name,
        ...(this.lastReplyMessage && { parentMessageId: this.lastReplyMessage }),
      },
      ...(input ? [{ type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: JSON.stringify(input.value) }] : []),
      { type: EventType.TOOL_CALL_END, toolCallId: id },
    ] as BaseEvent[];
  }

  private messageIdOf(call: string): string {
    const attempt = this.attempts.get(call);
    return attempt ? `${this.ids.runId}:${call}:${attempt}` : `${this.ids.runId}:${call}`;
  }

  private text(call: string, text: string): BaseEvent[] {
    if (text === '') return [];
    const events: BaseEvent[] = [];
    let messageId = this.openMessages.get(call);
    if (!messageId) {
      messageId = this.messageIdOf(call);
      this.openMessages.set(call, messageId);
      events.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' } as BaseEvent);
    }
    events.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: text } as BaseEvent);
    return events;
  }

  /** A span of reasoning opened for model call `call` (REASONING_START, then one reasoning message in it). */
  private openSpan(call: string): { events: BaseEvent[]; span: string; message: string } {
    const { span, message } = this.spanIds(call);
    return {
      span,
      message,
      events: [
        { type: EventType.REASONING_START, messageId: span } as BaseEvent,
        { type: EventType.REASONING_MESSAGE_START, messageId: message, role: 'reasoning' } as BaseEvent,
      ],
    };
  }

  /** Ids for the next reasoning span of `call` and its message: `…:reasoning` and `…:thinking`, numbered after the first. */
  private spanIds(call: string): { span: string; message: string } {
    const count = (this.spans.get(call) ?? 0) + 1;
    this.spans.set(call, count);
    const suffix = count === 1 ? '' : `:${count}`;
    return { span: `${this.messageIdOf(call)}:reasoning${suffix}`, message: `${this.messageIdOf(call)}:thinking${suffix}` };
  }

  private closeSpan(ids: { span: string; message: string }): BaseEvent[] {
    return [
      { type: EventType.REASONING_MESSAGE_END, messageId: ids.message } as BaseEvent,
      { type: EventType.REASONING_END, messageId: ids.span } as BaseEvent,
    ];
  }

  /** The model's thinking as it is written: a reasoning span per model call (per attempt), its text as content. */
  private thinking(call: string, text: string): BaseEvent[] {
    if (text === '') return [];
    const events: BaseEvent[] = [];
    let open = this.openReasoning.get(call);
    if (!open) {
      const opened = this.openSpan(call);
      events.push(...opened.events);
      open = { span: opened.span, message: opened.message };
      this.openReasoning.set(call, open);
    }
    const before = this.thoughtSoFar.get(call)?.text ?? '';
    this.thoughtSoFar.set(call, { text: before + text, message: open.message });
    events.push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: open.message, delta: text } as BaseEvent);
    return events;
  }

  private closeReasoning(call: string): BaseEvent[] {
    const open = this.openReasoning.get(call);
    if (!open) return [];
    this.openReasoning.delete(call);
    return this.closeSpan(open);
  }

  /** AG-UI cannot take text back: the partial message is closed and named for dropping, the new attempt is a new message. */
  private reset(call: string, attempt: number): BaseEvent[] {
    const events: BaseEvent[] = [];
    const reasoning = this.thoughtSoFar.get(call);
    this.thoughtSoFar.delete(call);
    if (reasoning) {
      events.push(...this.closeReasoning(call), this.custom(agUiCustomNames.textReset, { messageId: reasoning.message }));
    }
    const messageId = this.openMessages.get(call);
    this.attempts.set(call, attempt);
    if (!messageId) return events;
    this.openMessages.delete(call);
    events.push(
      { type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent,
      this.custom(agUiCustomNames.textReset, { messageId }),
    );
    return events;
  }

  /**
   * A reply's thinking: the span streamed is closed when it holds the reply's thinking; otherwise (not streamed, or not
   * what the model answered) the reply's thinking is told whole, a streamed span named for dropping. Thinking the
   * provider hid (redacted or encrypted), and events older than 0.3, say only that the model thought: an empty span.
   */
  private replyThinking(event: Extract<AgentEvent, { type: 'reply' }>): BaseEvent[] {
    const thinking = event.thinking ?? '';
    const streamed = this.thoughtSoFar.get(event.call);
    this.thoughtSoFar.delete(event.call);
    if (streamed && streamed.text === thinking) return this.closeReasoning(event.call);
    const events: BaseEvent[] = [...this.closeReasoning(event.call)];
    if (streamed) events.push(this.custom(agUiCustomNames.textReset, { messageId: streamed.message }));
    if (thinking) {
      const whole = this.openSpan(event.call);
      events.push(...whole.events);
      events.push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: whole.message, delta: thinking } as BaseEvent);
      events.push(...this.closeSpan(whole));
    } else if (event.thought) {
      const { span } = this.spanIds(event.call);
      events.push({ type: EventType.REASONING_START, messageId: span } as BaseEvent);
      events.push({ type: EventType.REASONING_END, messageId: span } as BaseEvent);
    }
    return events;
  }

  private reply(event: Extract<AgentEvent, { type: 'reply' }>): BaseEvent[] {
    const events: BaseEvent[] = this.replyThinking(event);
    let messageId = this.openMessages.get(event.call);
    if (!messageId && event.text !== '') {
      // A run followed without `stream: true` has no text events: the reply is the whole message at once.
      events.push(...this.text(event.call, event.text));
      messageId = this.openMessages.get(event.call);
    }
    if (messageId) {
      events.push({ type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent);
      this.openMessages.delete(event.call);
    }
    this.lastReplyMessage = messageId ?? this.messageIdOf(event.call);
    if (event.usage) {
      const model = event.model ?? 'unknown';
      const sum = this.usageByModel.get(model);
      this.usageByModel.set(model, sum ? addUsage(sum, event.usage) : event.usage);
    }
    return events;
  }

  private turnEnd(event: Extract<AgentEvent, { type: 'turn_end' }>): BaseEvent[] {
    const events: BaseEvent[] = [...this.openReasoning.values()].flatMap((open) => this.closeSpan(open));
    this.openReasoning.clear();
    events.push(
      ...[...this.openMessages.values()].map((messageId) => ({ type: EventType.TEXT_MESSAGE_END, messageId }) as BaseEvent),
    );
    this.openMessages.clear();
    this.pending.clear();
    this.finished = true;
    const usage = this.usage;
    const metadata = {
      [ownKey]: {
        turn: event.turn,
        status: event.status,
        ...(event.usage && { costUsd: event.usage.costUsd }),
        ...(event.guardrail && { guardrail: event.guardrail }),
      },
    };
    if (event.status === 'failed') {
      const failed: RunErrorEvent = {
        type: EventType.RUN_ERROR,
        message: event.error ?? 'the turn failed',
        code: 'turn_failed',
        timestamp: Date.now(),
        metadata,
        ...(usage.length > 0 && { usage }),
      };
      return [...events, failed];
    }
    const finished: RunFinishedEvent = {
      type: EventType.RUN_FINISHED,
      threadId: this.ids.threadId,
      runId: this.ids.runId,
      timestamp: Date.now(),
      // A stopped turn produced no answer to wait for; the session goes on, the next run is an ordinary one.
      outcome: event.status === 'interrupted' ? { type: 'cancelled' } : { type: 'success' },
      result: { answer: event.answer, status: event.status, ...(event.guardrail && { guardrail: event.guardrail }) },
      metadata,
      ...(usage.length > 0 && { usage }),
    };
    return [...events, finished];
  }

  private custom(name: string, value: unknown): BaseEvent {
    return { type: EventType.CUSTOM, name, value } as BaseEvent;
  }
}

function toolNameOf(summary: string): string {
  const name = summary.split(' ', 1)[0];
  return name === '' ? 'tool' : name;
}

/** Our usage in AG-UI's accounting: input and output are totals, the cache and reasoning counts parts of them. */
function tokenUsageOf(model: string, usage: Usage): TokenUsage {
  return {
    model,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    ...(usage.reasoningTokens !== undefined && { reasoningTokens: usage.reasoningTokens }),
    ...(usage.cacheReadTokens !== undefined && { cachedInputTokens: usage.cacheReadTokens }),
    ...(usage.cacheWriteTokens !== undefined && { cacheWriteInputTokens: usage.cacheWriteTokens }),
  };
}
