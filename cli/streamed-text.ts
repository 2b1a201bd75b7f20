import { printable } from './terminal-text';

/**
 * The model's text on a terminal, each call's text shown once. Pieces are
 * written as they come. After a `reset` (the call's attempt failed and a new one
 * writes its text again from the start), the new attempt's text is held while it
 * repeats what is already shown and only what goes beyond is written: a retry
 * leaves no partial text twice on the screen. If the new attempt says something
 * else, a note says the call was retried and its new text follows. A reply's
 * whole text completes whatever its pieces did not show (a run that does not
 * stream shows each reply whole).
 */
export class StreamedText {
  private call: string | undefined;
  /** The text shown for `call`. */
  private shown = '';
  /** Set after a reset: the new attempt's text so far, not written while it repeats `shown`. */
  private retried: string | undefined;
  /** The attempt that reset `call`, for the note. */
  private attempt = 0;
  private lineOpen = false;
  /** What the current line shows of the call's text, since its last line end. */
  private lineSoFar = '';
  /**
   * The call's line as it was when another line cut into it (a retry's notice): written again before the call's
   * text goes on, so that a sentence reads whole on the line below the notice rather than in two halves around it.
   */
  private resumeWith: string | undefined;

  constructor(
    private readonly write: (piece: string) => void,
    /** A line of its own (on stderr, say), when a retry changed the text. */
    private readonly note: (line: string) => void,
  ) {}

  /** A piece of call `call`'s text, as it was written. */
  piece(call: string, text: string): void {
    if (call !== this.call) this.begin(call);
    if (this.retried === undefined) {
      this.shown += text;
      return this.out(text);
    }
    this.retried += text;
    if (this.shown.startsWith(this.retried)) return; // still repeating what is shown
    this.showInstead(this.retried);
  }

  /** Call `call` starts over with attempt `attempt`: what it writes next repeats its text from the start. */
  reset(call: string, attempt: number): void {
    if (call !== this.call || !this.shown) return;
    this.retried = '';
    this.attempt = attempt;
  }

  /** Call `call` answered with `text`, whole. */
  whole(call: string, text: string): void {
    if (call !== this.call) this.begin(call);
    if (this.retried !== undefined || text.startsWith(this.shown)) return this.showInstead(text);
    // The pieces and the reply disagree with no retry in between: the reply is what the model answered.
    this.breakLine();
    this.resumeWith = undefined;
    this.out(text);
    this.shown = text;
  }

  /**
   * A turn's answer (at its end, or known from elsewhere): whatever of it is not shown yet. It is usually the last
   * call's text, already shown; an answer that is not (an interrupted turn's, say) is written whole.
   */
  answer(text: string): void {
    if (text && text !== this.shown) {
      if (this.shown && text.startsWith(this.shown)) this.out(text.slice(this.shown.length));
      else {
        this.breakLine();
        this.resumeWith = undefined;
        this.out(text);
      }
    }
    this.begin(undefined);
  }

  /** Ends a line left open, before anything else is printed on the terminal: the call's text resumes below it. */
  endLine(): void {
    if (this.lineOpen && this.call !== undefined) this.resumeWith = this.lineSoFar;
    this.breakLine();
  }

  /** Ends a line left open for text of our own that follows whole (nothing to resume). */
  private breakLine(): void {
    if (!this.lineOpen) return;
    this.write('\n');
    this.lineOpen = false;
    this.lineSoFar = '';
  }

  /** `text` replaces what is shown of the call: only the rest when it goes on from there, else a note and all of it. */
  private showInstead(text: string): void {
    if (text.startsWith(this.shown)) {
      this.out(text.slice(this.shown.length));
    } else {
      this.breakLine();
      this.resumeWith = undefined;
      this.note(`↻ the model call was retried (attempt ${this.attempt}) and wrote something else; its text again:`);
      this.out(text);
    }
    this.shown = text;
    this.retried = undefined;
  }

  private begin(call: string | undefined): void {
    this.breakLine();
    this.resumeWith = undefined;
    this.call = call;
    this.shown = '';
    this.retried = undefined;
    this.attempt = 0;
  }

  private out(text: string): void {
    if (!text) return;
    const written = (this.resumeWith ?? '') + text;
    this.resumeWith = undefined;
    this.write(printable(written));
    this.lineOpen = !written.endsWith('\n');
    this.lineSoFar = written.includes('\n') ? written.slice(written.lastIndexOf('\n') + 1) : this.lineSoFar + written;
  }
}
