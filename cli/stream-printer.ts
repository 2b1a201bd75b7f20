import type { StreamEvent } from '../core/stream-events';

/** Where a printer writes: the text as it comes (no line end added), and whole lines (tool calls, turn marks). */
export interface StreamSink {
  text(piece: string): void;
  line(line: string): void;
}

/**
 * Prints a run's stream for a person: each model call's text as it is written,
 * and (with `lines`) the tool calls and turn boundaries. Nothing is shown twice:
 * after a `reset`, the retried attempt's text is held while it repeats what is
 * already shown, and only what goes beyond is printed; if it says something
 * else, a line says the call was retried and its new text follows. A reply's
 * whole text completes whatever its deltas did not show (a run that does not
 * stream shows each reply whole).
 */
export class StreamPrinter {
  /** The text shown for the model call being written. */
  private shown = '';
  private call: string | undefined;
  /** Set after a reset: the retried attempt's text so far, not shown while it repeats `shown`. */
  private retried: string | undefined;
  private lineOpen = false;
  /** Set once `complete` has shown the turn's answer: the rest of that turn's events are late news, not shown again. */
  private answered = false;
  /** The last turn whose end was seen. */
  lastTurnEnded = 0;

  constructor(
    private readonly sink: StreamSink,
    private readonly options: { lines: boolean },
  ) {}

  handle(event: StreamEvent): void {
    if (this.answered && event.type !== 'turn_start') return;
    switch (event.type) {
      case 'turn_start':
        this.answered = false;
        this.line(`── turn ${event.turn}`);
        break;
      case 'text':
        this.onText(event.call, event.text);
        break;
      case 'reset':
        if (event.call === this.call) this.retried = '';
        break;
      case 'reply':
        this.onReply(event.call, event.text);
        break;
      case 'tool_start':
        this.line(`  → ${event.summary}`);
        break;
      case 'tool_result':
        this.line(`  ${event.isError ? '✗' : '✓'} ${event.summary}${event.isError ? `: ${event.preview}` : ''}`);
        break;
      case 'approval_requested': {
        const by = event.agents.length > 1 ? `, asked by ${event.agents.join(' → ')}` : '';
        this.line(`  ? waiting for approval (call ${event.id}${by}):\n${indent(event.description ?? event.summary)}`);
        break;
      }
      case 'approval_decided':
        this.line(`  ${event.approved ? '✓ approved' : `✗ not approved (${event.reason ?? 'denied'})`}: call ${event.id}`);
        break;
      case 'turn_end':
        this.lastTurnEnded = Math.max(this.lastTurnEnded, event.turn);
        this.endLine();
        if (event.status === 'failed') this.line(`── turn ${event.turn} failed: ${event.error ?? ''}`);
        else if (event.status !== 'completed') this.line(`── turn ${event.turn} ended: ${event.status}`);
        break;
      default: {
        const exhaustive: never = event;
        throw new Error(`unknown stream event ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  /**
   * The turn's answer, known from elsewhere (the run's result, a message's reply), which the stream may not have
   * shown in full yet: what it did not show is printed, then a line end, and the turn's later events are not shown.
   */
  complete(answer: string): void {
    this.show(answer);
    this.answered = true;
  }

  private show(answer: string): void {
    if (answer.startsWith(this.shown)) this.write(answer.slice(this.shown.length));
    else if (answer) this.retold(answer);
    this.shown = answer;
    this.endLine();
  }

  private onText(call: string, piece: string): void {
    if (call !== this.call) this.begin(call);
    if (this.retried === undefined) return this.write(piece, true);
    this.retried += piece;
    if (this.shown.startsWith(this.retried)) return;
    if (this.retried.startsWith(this.shown)) this.write(this.retried.slice(this.shown.length));
    else this.retold(this.retried);
    this.shown = this.retried;
    this.retried = undefined;
  }

  private onReply(call: string, text: string): void {
    if (call !== this.call) this.begin(call);
    this.retried = undefined;
    this.show(text);
  }

  private begin(call: string): void {
    this.endLine();
    this.call = call;
    this.shown = '';
    this.retried = undefined;
  }

  /** The call's text changed after a retry: say so, then give the new text whole. */
  private retold(text: string): void {
    this.endLine();
    this.sink.line('(the model call was retried; its answer again:)');
    this.write(text);
  }

  private write(piece: string, addToShown = false): void {
    if (!piece) return;
    if (addToShown) this.shown += piece;
    this.sink.text(piece);
    this.lineOpen = !piece.endsWith('\n');
  }

  private line(text: string): void {
    if (!this.options.lines) return;
    this.endLine();
    this.sink.line(text);
  }

  private endLine(): void {
    if (!this.lineOpen) return;
    this.sink.text('\n');
    this.lineOpen = false;
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
