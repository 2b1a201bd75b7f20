import { createInterface, type Interface } from 'node:readline';

/**
 * The lines typed on an input, one at a time, to whoever asks next: the chat
 * loop for the next message, or an approval prompt in the middle of a turn.
 * A reader that stops waiting (its signal aborts) gives up its place, so the
 * line it would have taken goes to the next reader instead of being lost.
 */
export class LineQueue {
  private readonly lines: string[] = [];
  private readonly waiting: Array<(line: string | undefined) => void> = [];
  private closed = false;
  private readonly reader: Interface;

  constructor(input: NodeJS.ReadableStream) {
    this.reader = createInterface({ input, terminal: false });
    this.reader.on('line', (line) => {
      const next = this.waiting.shift();
      if (next) next(line);
      else this.lines.push(line);
    });
    this.reader.on('close', () => {
      this.closed = true;
      for (const next of this.waiting.splice(0)) next(undefined);
    });
  }

  /** The next line; undefined once the input has ended or `signal` aborts. */
  next(signal?: AbortSignal): Promise<string | undefined> {
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift());
    if (this.closed || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const take = (line: string | undefined) => {
        signal?.removeEventListener('abort', giveUp);
        resolve(line);
      };
      const giveUp = () => {
        const index = this.waiting.indexOf(take);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', giveUp, { once: true });
      this.waiting.push(take);
    });
  }

  /** Stops reading the input while another program has the terminal (an editor), so no keystroke is taken from it. */
  pause(): void {
    this.reader.pause();
  }

  resume(): void {
    this.reader.resume();
  }

  close(): void {
    this.reader.close();
  }
}
