import type { TurnStatus } from '../core/result';
import type { AgentEvent } from '../core/stream-events';
import type { Usage } from '../core/usage';
import { opensSteeredResponse, type StartAfter, type TurnTranslator } from './turn-response';

export type { StartAfter } from './turn-response';

/**
 * The chunks of the AI SDK's UI message stream (protocol v1) this server sends: the shapes `ai`'s own
 * `uiMessageChunkSchema` accepts (test/web/ui-message-chunks.test.ts checks every one against it). Declared here,
 * not imported, so that durable-agent/web does not need `ai` installed to type-check.
 */
export type UiMessageChunk =
  | { type: 'start'; messageId: string; messageMetadata?: unknown }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'reset-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string; title?: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown; title?: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string; reason?: string; approvalDescriptor?: unknown }
  | { type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string }
  | { type: `data-${string}`; id?: string; data: unknown }
  | { type: 'error'; errorText: string }
  | { type: 'finish'; finishReason?: UiFinishReason; messageMetadata?: unknown };

export type UiFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'interrupted' | 'other';

/** The id of the assistant message that answers turn `turn`: the same in a live stream, a resume and the conversation. */
export function assistantMessageId(turn: number): string {
  return `turn-${turn}`;
}

/**
 * The id of the assistant message that goes on with turn `turn` after it took steering messages, `iteration` model
 * calls in: a steering message's response, and the conversation read back (web/ui-messages.ts), give it this id.
 */
export function steeredMessageId(turn: number, iteration: number): string {
  return `${assistantMessageId(turn)}-steered-${iteration}`;
}

/**
 * Turns one turn's stream events (core/stream-events.ts) into UI message chunks: the turn is one assistant message,
 * each model call one step (start-step), its thinking reasoning parts and its text text parts (a new part each time
 * the two alternate), a retried call's partial text and thinking dropped with reset-step (which removes the current
 * step's parts in the browser) before the new attempt writes again. Tool calls are tool parts (tool-input-start, then
 * tool-input-available with the arguments as the stream bounds them, then output, error or denial), approvals the
 * protocol's approval request and response, usage and cost `data-usage` parts and the finish's metadata. Pure:
 * events in, chunks out.
 *
 * Events before `startAfter` are read (they set the turn, the call, the tools seen) but not sent: the client has them.
 */
export class UiMessageTranslator implements TurnTranslator<UiMessageChunk> {
  private emitting: boolean;
  private readonly awaiting: Set<string>;
  private turn: number | undefined;
  private sentStart = false;
  private call: string | undefined;
  private attempt = 1;
  private openText: string | undefined;
  private textSoFar = '';
  private openReasoning: string | undefined;
  private thinkingSoFar = '';
  /** Parts opened in the current step: each gets an id of its own (`call:attempt:n`). */
  private parts = 0;
  private readonly toolNames = new Map<string, string>();
  private readonly toolsShown = new Set<string>();
  private readonly denied = new Set<string>();
  private readonly pending = new Set<string>();
  private done = false;
  /** The id of the message this response writes: the turn's, or (a steering message's response) its continuation's. */
  private messageId: string | undefined;

  constructor(private readonly startAfter: StartAfter = { kind: 'turn_start' }) {
    this.emitting = false;
    this.awaiting = new Set(startAfter.kind === 'approvals' ? startAfter.calls : []);
  }

  /** True once the turn ended (`finish` sent). */
  get ended(): boolean {
    return this.done;
  }

  /** Approvals asked in this turn and not yet decided. */
  get waitingApprovals(): number {
    return this.pending.size;
  }

  /** The stream opens with the turn's first chunk: nothing before it. */
  opening(): UiMessageChunk[] {
    return [];
  }

  translate(event: AgentEvent): UiMessageChunk[] {
    if (this.done) return [];
    // The end of a turn before this stream's own (a message sent while another turn streamed) is not this one's end.
    if (!this.emitting && event.type === 'turn_end') return [];
    const before = this.emitting;
    this.updateEmitting(event);
    // A steering message that opens the stream is the client's own: its continuation starts after it.
    const chunks = !before && this.emitting && event.type === 'steered' ? [] : this.chunksOf(event);
    // A turn_start that opens the stream is its first chunk; an approval request that opens it was the client's already.
    const emit = event.type === 'turn_start' || event.type === 'steered' ? this.emitting : before;
    if (!emit) return [];
    if (this.sentStart || this.turn === undefined) return chunks;
    this.sentStart = true;
    const messageId = this.messageId ?? assistantMessageId(this.turn);
    return [{ type: 'start', messageId, messageMetadata: { turn: this.turn } }, ...chunks];
  }

  /** The response ends here while the turn waits for a person: the message stays open for the approval response. */
  pause(): UiMessageChunk[] {
    return [...this.closeStep(), { type: 'finish', finishReason: 'tool-calls' }];
  }

  /** The follow ended before the turn did (the session closed): tell the client, rather than leave it waiting. */
  abandon(reason: string): UiMessageChunk[] {
    this.done = true;
    return [
      { type: 'error', errorText: reason },
      { type: 'finish', finishReason: 'error' },
    ];
  }

  private updateEmitting(event: AgentEvent): void {
    if (this.emitting) return;
    if (this.startAfter.kind === 'turn_start') {
      // The first turn_start's chunks are sent too: the turn begins with it.
      this.emitting = event.type === 'turn_start';
    } else if (this.startAfter.kind === 'steered') {
      this.emitting = opensSteeredResponse(event, this.startAfter.turn);
      if (this.emitting && event.type === 'steered') {
        this.turn = event.turn;
        this.messageId = steeredMessageId(event.turn, event.iteration);
        // The step before the steering message is the other response's: this message's steps start with the next call.
        this.call = undefined;
        this.openText = undefined;
        this.openReasoning = undefined;
      }
    } else if (event.type === 'approval_requested') {
      this.awaiting.delete(event.id);
      this.emitting = this.awaiting.size === 0;
    }
  }

  private chunksOf(event: AgentEvent): UiMessageChunk[] {
    switch (event.type) {
      case 'turn_start':
        this.turn = event.turn;
        this.call = undefined;
        this.openText = undefined;
        this.textSoFar = '';
        this.openReasoning = undefined;
        this.thinkingSoFar = '';
        return [];
      case 'text': {
        const chunks = [...this.enterStep(event.call), ...this.closeReasoning()];
        if (!this.openText) {
          this.openText = this.partId(event.call);
          chunks.push({ type: 'text-start', id: this.openText });
        }
        this.textSoFar += event.text;
        chunks.push({ type: 'text-delta', id: this.openText, delta: event.text });
        return chunks;
      }
      case 'thinking': {
        if (event.text === '') return [];
        const chunks = [...this.enterStep(event.call), ...this.closeText()];
        if (!this.openReasoning) {
          this.openReasoning = this.partId(event.call);
          chunks.push({ type: 'reasoning-start', id: this.openReasoning });
        }
        this.thinkingSoFar += event.text;
        chunks.push({ type: 'reasoning-delta', id: this.openReasoning, delta: event.text });
        return chunks;
      }
      case 'reset': {
        const chunks = this.enterStep(event.call);
        this.attempt = event.attempt;
        this.openText = undefined;
        this.textSoFar = '';
        this.openReasoning = undefined;
        this.thinkingSoFar = '';
        // reset-step removes this step's parts in the browser: the partial text of the failed attempt.
        chunks.push({ type: 'reset-step' });
        return chunks;
      }
      case 'reply':
        return this.reply(event);
      case 'tool_start':
        return this.showTool(
          event.id,
          event.name ?? toolNameOf(event.summary, this.toolNames.get(event.id)),
          event.summary,
          // Since 0.3 the call's arguments, bounded (core/stream-tool-input.ts); an older run's event has only its summary.
          'input' in event ? event.input : { summary: event.summary },
        );
      case 'tool_result': {
        if (this.denied.has(event.id)) return [];
        const chunks = this.showTool(event.id, toolNameOf(event.summary, this.toolNames.get(event.id)), event.summary);
        chunks.push(
          event.isError
            ? { type: 'tool-output-error', toolCallId: event.id, errorText: event.preview }
            : { type: 'tool-output-available', toolCallId: event.id, output: event.preview },
        );
        return chunks;
      }
      case 'approval_requested': {
        this.toolNames.set(event.id, event.tool);
        this.pending.add(event.id);
        // Since 0.3 the request carries the arguments (bounded); an older one only its summary.
        const chunks = this.showTool(event.id, event.tool, event.summary, event.input);
        chunks.push({
          type: 'tool-approval-request',
          approvalId: event.id,
          toolCallId: event.id,
          // What will really run: the description built from the arguments the tool will get.
          reason: event.description ?? event.summary,
          approvalDescriptor: {
            tool: event.tool,
            summary: event.summary,
            description: event.description ?? event.summary,
            agents: event.agents,
            askedAt: event.askedAt,
            // The approval policy's rule that asks (docs/policy.md); `edited`: the person's arguments, asked again.
            ...(event.rule !== undefined && { rule: event.rule }),
            ...(event.edited && { edited: true }),
          },
        });
        return chunks;
      }
      case 'approval_decided': {
        this.pending.delete(event.id);
        const chunks: UiMessageChunk[] = [
          {
            type: 'tool-approval-response',
            approvalId: event.id,
            approved: event.approved,
            ...(event.reason !== undefined && { reason: event.reason }),
          },
        ];
        if (!event.approved) {
          this.denied.add(event.id);
          chunks.push({ type: 'tool-output-denied', toolCallId: event.id });
        }
        return chunks;
      }
      case 'handoff':
        return [{ type: 'data-handoff', data: { from: event.from, to: event.to } }];
      case 'waiting': {
        // What the call waits for and until when: a data part the page shows by the call's card until its result.
        const { type: _type, ...wait } = event;
        return [{ type: 'data-wait', id: `wait-${event.callId}`, data: wait }];
      }
      case 'steered':
        // A steering message taken while this response follows the turn: a data part where it joined (the page shows
        // the person's words there); the conversation read back has it as a user message.
        return [{ type: 'data-steered', data: { text: event.text, iteration: event.iteration } }];
      case 'model_retry': {
        // A data part the page may show (the attempt, the host, the error); clients that do not know it skip it.
        const { type: _type, ...retry } = event;
        return [{ type: 'data-model-retry', data: retry }];
      }
      case 'turn_end': {
        this.done = true;
        const chunks = this.closeStep();
        if (event.usage) chunks.push({ type: 'data-usage', id: `turn-${event.turn}`, data: usageData(event.usage) });
        if (event.status === 'failed') chunks.push({ type: 'error', errorText: event.error ?? 'the turn failed' });
        // A guardrail's reason is the person's answer to why there is none: a data part the page shows in the message.
        if (event.guardrail) chunks.push({ type: 'data-guardrail', id: `turn-${event.turn}-guardrail`, data: event.guardrail });
        chunks.push({
          type: 'finish',
          finishReason: finishReasonOf(event.status),
          messageMetadata: {
            turn: event.turn,
            status: event.status,
            iterations: event.iterations,
            ...(event.usage && { usage: usageData(event.usage) }),
            ...(event.guardrail && { guardrail: event.guardrail }),
          },
        });
        return chunks;
      }
      default: {
        // A newer worker's event this code does not know: the client is told nothing rather than something wrong.
        const _exhaustive: never = event;
        void _exhaustive;
        return [];
      }
    }
  }

  private reply(event: Extract<AgentEvent, { type: 'reply' }>): UiMessageChunk[] {
    const chunks = this.enterStep(event.call);
    const thinking = event.thinking ?? '';
    if (this.textSoFar === event.text && this.thinkingSoFar === thinking) {
      chunks.push(...this.closeReasoning(), ...this.closeText());
      if (event.thought && !thinking) {
        // Thinking the provider hid (redacted, or encrypted without a summary), or an event older than 0.3: the stream
        // tells that the model thought, not what; an empty reasoning part, which a page shows collapsed.
        const id = this.partId(event.call);
        chunks.push({ type: 'reasoning-start', id }, { type: 'reasoning-end', id });
      }
    } else {
      // Text or thinking not streamed (a run without `stream`, a provider that does not stream thinking), or streamed
      // but not what the model answered: the reply is the truth, so what was shown goes and the whole is written.
      if (this.textSoFar || this.thinkingSoFar) chunks.push({ type: 'reset-step' });
      this.openText = undefined;
      this.openReasoning = undefined;
      if (thinking || event.thought) {
        const id = this.partId(event.call);
        chunks.push({ type: 'reasoning-start', id });
        if (thinking) chunks.push({ type: 'reasoning-delta', id, delta: thinking });
        chunks.push({ type: 'reasoning-end', id });
      }
      if (event.text) {
        const id = this.partId(event.call);
        chunks.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: event.text }, { type: 'text-end', id });
      }
    }
    this.textSoFar = event.text;
    this.thinkingSoFar = thinking;
    if (event.usage) {
      chunks.push({
        type: 'data-usage',
        id: event.call,
        data: { call: event.call, model: event.model, agent: event.agent, iteration: event.iteration, ...usageData(event.usage) },
      });
    }
    return chunks;
  }

  /** Opens model call `call`'s step, closing the previous call's. */
  private enterStep(call: string): UiMessageChunk[] {
    if (this.call === call) return [];
    const chunks = this.closeStep();
    this.call = call;
    this.attempt = 1;
    this.parts = 0;
    this.textSoFar = '';
    this.thinkingSoFar = '';
    chunks.push({ type: 'start-step' });
    return chunks;
  }

  private closeStep(): UiMessageChunk[] {
    if (this.call === undefined) return [];
    const chunks: UiMessageChunk[] = [...this.closeReasoning(), ...this.closeText()];
    chunks.push({ type: 'finish-step' });
    this.call = undefined;
    return chunks;
  }

  private closeText(): UiMessageChunk[] {
    const open = this.openText;
    this.openText = undefined;
    return open ? [{ type: 'text-end', id: open }] : [];
  }

  private closeReasoning(): UiMessageChunk[] {
    const open = this.openReasoning;
    this.openReasoning = undefined;
    return open ? [{ type: 'reasoning-end', id: open }] : [];
  }

  /** A new part's id, unique in the message: the call, its attempt, and the part's place in the attempt. */
  private partId(call: string): string {
    return `${call}:${this.attempt}:${++this.parts}`;
  }

  /**
   * A tool part needs its input before any output or approval: shown once per call, as the protocol opens one
   * (tool-input-start, then tool-input-available with the whole input; we have no partial arguments to stream).
   */
  private showTool(id: string, toolName: string, summary: string, input: unknown = { summary }): UiMessageChunk[] {
    if (this.toolsShown.has(id)) return [];
    this.toolsShown.add(id);
    return [
      { type: 'tool-input-start', toolCallId: id, toolName, title: summary },
      { type: 'tool-input-available', toolCallId: id, toolName, input, title: summary },
    ];
  }
}

/** The tool's name: known from its approval request, else the summary's first word (`write_file "notes.txt"`). */
function toolNameOf(summary: string, known: string | undefined): string {
  if (known) return known;
  return /^[A-Za-z0-9_.:-]+/.exec(summary)?.[0] ?? 'tool';
}

function usageData(usage: Usage): Record<string, unknown> {
  return { ...usage };
}

function finishReasonOf(status: TurnStatus | 'failed'): UiFinishReason {
  switch (status) {
    case 'completed':
      return 'stop';
    case 'interrupted':
      return 'interrupted';
    case 'max_iterations':
    case 'truncated':
    case 'token_budget':
    case 'cost_budget':
      return 'length';
    case 'refused':
    case 'guardrail_tripped':
      return 'content-filter';
    case 'failed':
      return 'error';
    default:
      return 'other';
  }
}
