import type { PendingApproval } from '../core/result';
import type { AgentEvent, EvalEvent } from '../core/stream-events';
import {
  approvalDecidedLine,
  evalEndLine,
  evalPairEndLine,
  evalPairStartLine,
  approvalRequestedLine,
  handoffLine,
  replyLine,
  retryLine,
  steeredLine,
  toolResultLine,
  toolStartLine,
  turnEndLine,
  turnStartLine,
  waitingLine,
} from './event-lines';
import { StreamedText } from './streamed-text';

/** Where a renderer writes. */
export interface RenderSink {
  /** The model's text as it is written, no line end added (stdout). */
  text(piece: string): void;
  /** The run's story: turn marks, tool calls, approvals (stderr for `run` and `chat`; a watcher's stdout). */
  line(line: string): void;
  /** Progress: each model call with its usage, handoffs (stderr). */
  progress(line: string): void;
}

export interface RenderOptions {
  /** Show the model's text, as it is written (or each reply whole); without, the command prints the answer itself. */
  text: boolean;
  /** Show the turn marks, each tool call as it starts and each turn's status: a watcher's running story. */
  marks: boolean;
  /** Whoever takes approvals (a prompt at the terminal); without one, requests and decisions are lines of the story. */
  approvals?: { requested(request: PendingApproval): void; decided(id: string): void };
}

/**
 * Renders a run's stream (core/stream-events.ts), the one story of a run, for
 * a person: `agent run`, `agent chat` and `agent watch` all print through this
 * (`handle`), and so do `agent eval` and `agent watch <eval id>` an eval's (`handleEval`).
 * Each event is shown once, in the order it happened, and each turn's answer
 * once: at the turn's end, or (`complete`) from the reply when the stream is
 * late, and then not again. Events carried over from older runs lack some
 * fields; what they have is shown.
 */
export class StreamRenderer {
  private readonly shown: StreamedText;
  /** Model calls of the turn so far, when its start was seen (for replies that do not say their iteration). */
  private iteration: number | undefined;
  private lastReset: { call: string; attempt: number } | undefined;
  /** The text is not shown while fewer turns than this have ended: their answer was shown from elsewhere. */
  private quietUntilTurnEnds = 0;
  /** Turn ends seen (a failed turn's included: every message that entered a turn has one). */
  turnEnds = 0;
  /** The number of the last turn whose end was seen. */
  lastTurnEnded = 0;

  constructor(
    private readonly sink: RenderSink,
    private readonly options: RenderOptions,
  ) {
    this.shown = new StreamedText(sink.text, (note) => this.sink.line(note));
  }

  /** An agent run's event. */
  handle(event: AgentEvent): void {
    const showText = this.options.text && this.turnEnds >= this.quietUntilTurnEnds;
    switch (event.type) {
      case 'turn_start':
        this.iteration = 0;
        if (this.options.marks) this.line(turnStartLine(event));
        break;
      case 'text':
        if (showText) this.shown.piece(event.call, event.text);
        break;
      case 'thinking':
        // The terminal says that the model thought (in the reply's line), never what: `agent show --thinking` prints it.
        break;
      case 'reset':
        this.lastReset = { call: event.call, attempt: event.attempt };
        if (showText) this.shown.reset(event.call, event.attempt);
        break;
      case 'reply': {
        if (this.iteration !== undefined) this.iteration++;
        if (showText) this.shown.whole(event.call, event.text);
        const attempt = this.lastReset?.call === event.call ? this.lastReset.attempt : undefined;
        this.progress(replyLine(event, { iteration: this.iteration, attempt }));
        break;
      }
      case 'model_retry':
        // On stderr for run and chat, as it happens: a run that cannot reach its model is not silent while it retries.
        this.progress(retryLine(event));
        break;
      case 'tool_start':
        if (this.options.marks) this.line(toolStartLine(event));
        break;
      case 'tool_result':
        this.line(toolResultLine(event));
        break;
      case 'approval_requested': {
        const { type: _type, ...request } = event;
        if (this.options.approvals) {
          this.shown.endLine();
          this.options.approvals.requested(request);
        } else this.line(approvalRequestedLine(event));
        break;
      }
      case 'approval_decided':
        if (this.options.approvals) this.options.approvals.decided(event.id);
        else this.line(approvalDecidedLine(event));
        break;
      case 'handoff':
        this.progress(handoffLine(event));
        break;
      case 'waiting':
        // What the turn waits for and until when: a line of the story, as a tool result is.
        this.line(waitingLine(event));
        break;
      case 'steered':
        // A line of the story for everyone, chat included: the person who steered sees when the turn took it.
        this.line(steeredLine(event));
        break;
      case 'turn_end': {
        if (showText) this.shown.answer(event.answer);
        this.turnEnds++;
        this.lastTurnEnded = event.turn;
        this.iteration = undefined;
        const ended = turnEndLine(event);
        if (ended && (this.options.marks || event.status === 'failed')) this.line(ended);
        break;
      }
      default: {
        // An event of a newer version of the workflow, which this CLI cannot know: not shown, and no reason to stop.
        const _exhaustive: never = event;
        void _exhaustive;
      }
    }
  }

  /** An eval's event: each pair's start (a mark), its end with its score, and the eval's end. */
  handleEval(event: EvalEvent): void {
    switch (event.type) {
      case 'eval_pair_start':
        if (this.options.marks) this.line(evalPairStartLine(event));
        break;
      case 'eval_pair_end':
        this.line(evalPairEndLine(event));
        break;
      case 'eval_end':
        this.line(evalEndLine(event));
        break;
      default: {
        // An eval event of a newer version of the workflow: not shown, as in handle.
        const _exhaustive: never = event;
        void _exhaustive;
      }
    }
  }

  /**
   * The answer of the turn whose end is the `turnEnd`th, known from elsewhere (the run's result, a message's reply)
   * before the stream told it: what the stream has not shown of it is shown now, and that turn's text is not shown
   * when the stream gets there. Nothing when the stream already ended that turn.
   */
  complete(answer: string, turnEnd: number): void {
    if (this.turnEnds >= turnEnd) return;
    if (this.options.text) this.shown.answer(answer);
    this.quietUntilTurnEnds = turnEnd;
  }

  private line(text: string): void {
    this.shown.endLine();
    this.sink.line(text);
  }

  private progress(text: string): void {
    this.shown.endLine();
    this.sink.progress(text);
  }
}
