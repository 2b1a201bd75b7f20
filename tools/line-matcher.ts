import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { AgentError, ToolInputError } from '../core/errors';

/**
 * Matches lines against a model-given pattern in a thread of its own, with RE2's linear-time engine (re2js).
 *
 * Linear time is not cheap time: re2js's cost is the line's length times the pattern's program size, and a
 * pattern like `.{0,1000}.{0,1000}.{0,1000}.{0,1000}c$` takes over a second on one 4 KB line. Matching in the
 * worker's own thread would stall every other run on it for that long, so the matching runs in a worker thread
 * and the caller only awaits messages; terminate() stops it mid-line when the search's budget runs out or the
 * activity is cancelled.
 *
 * The thread's code is plain JavaScript given as a string (eval), so it runs the same under tsx, jest and the
 * compiled library without a build step of its own; it loads re2js by the absolute path resolved here.
 */
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { RE2JS } = require(workerData.re2js);
let pattern;
try {
  pattern = RE2JS.compile(workerData.pattern);
} catch (error) {
  parentPort.postMessage({ kind: 'invalid', message: String(error && error.message) });
}
if (pattern) {
  parentPort.postMessage({ kind: 'ready' });
  parentPort.on('message', ({ lines, limit }) => {
    const found = [];
    for (let index = 0; index < lines.length && found.length < limit; index++) {
      if (pattern.test(lines[index])) found.push(index);
    }
    parentPort.postMessage({ kind: 'matches', found });
  });
}
`;

type ThreadMessage = { kind: 'ready' } | { kind: 'invalid'; message: string } | { kind: 'matches'; found: number[] };

// At most this many matcher threads at once per worker: each costs a core while it matches and some MB of heap, and
// a worker runs many activities at a time. A search beyond it waits (without blocking anything) for a free slot.
const maxThreads = Math.max(2, os.availableParallelism());
let threadsRunning = 0;
const waitingForThread: (() => void)[] = [];

async function acquireThreadSlot(signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  if (threadsRunning < maxThreads) {
    threadsRunning++;
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const granted = () => {
      signal.removeEventListener('abort', aborted);
      resolve();
    };
    const aborted = () => {
      waitingForThread.splice(waitingForThread.indexOf(granted), 1);
      reject(signal.reason);
    };
    waitingForThread.push(granted);
    signal.addEventListener('abort', aborted, { once: true });
  });
}

function releaseThreadSlot(): void {
  const next = waitingForThread.shift();
  if (next) next();
  else threadsRunning--;
}

/** Thrown by a matcher that was stopped (budget spent or activity cancelled) while it was matching. */
export class MatcherStopped extends AgentError {}

export class LineMatcher {
  private pending?: { resolve: (message: ThreadMessage) => void; reject: (error: Error) => void };
  private failure?: Error;
  private released = false;

  private constructor(private readonly thread: Worker) {
    thread.on('message', (message: ThreadMessage) => {
      const pending = this.pending;
      this.pending = undefined;
      pending?.resolve(message);
    });
    thread.on('error', (error) => this.fail(error));
    thread.on('exit', () => {
      this.fail(new MatcherStopped('the matcher was stopped'));
      if (!this.released) releaseThreadSlot();
      this.released = true;
    });
  }

  /**
   * Starts a thread (waiting for a free slot first, until `signal` aborts) and compiles `pattern` there. An RE2
   * syntax error is a ToolInputError; so is a pattern that is still compiling after `compileTimeoutMs`.
   */
  static async start(pattern: string, compileTimeoutMs: number, signal: AbortSignal): Promise<LineMatcher> {
    await acquireThreadSlot(signal);
    let matcher: LineMatcher;
    try {
      matcher = new LineMatcher(
        new Worker(threadSource, {
          eval: true,
          workerData: { pattern, re2js: require.resolve('re2js') },
          // The thread holds one compiled pattern and one file's lines; bounding its heap makes a runaway fail there.
          resourceLimits: { maxOldGenerationSizeMb: 256 },
        }),
      );
    } catch (error) {
      releaseThreadSlot();
      throw error;
    }
    const timer = setTimeout(() => void matcher.stop(), compileTimeoutMs);
    try {
      const first = await matcher.next();
      if (first.kind === 'invalid')
        throw new ToolInputError(
          `invalid regular expression (RE2 syntax): ${first.message.replace(/^error parsing regexp: /, '')}`,
        );
      return matcher;
    } catch (error) {
      await matcher.stop();
      if (error instanceof MatcherStopped)
        throw new ToolInputError(`the pattern takes too long to compile (over ${compileTimeoutMs / 1000} s); use a simpler one`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The indexes of the lines that match, at most `limit` of them. Rejects with MatcherStopped once stop() is called. */
  async match(lines: string[], limit: number): Promise<number[]> {
    const result = this.next();
    this.thread.postMessage({ lines, limit });
    const message = await result;
    if (message.kind !== 'matches') throw new Error(`line matcher: unexpected ${message.kind} message`);
    return message.found;
  }

  /** Ends the thread, mid-line if need be; a match() in flight rejects with MatcherStopped. */
  async stop(): Promise<void> {
    this.fail(new MatcherStopped('the matcher was stopped'));
    await this.thread.terminate();
  }

  private next(): Promise<ThreadMessage> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
    });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(this.failure);
  }
}
