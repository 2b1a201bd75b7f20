import { z } from 'zod';
import { defineTool, type Tool } from '../../tools';

/** Bytes of new text each bench_text call adds to the conversation. */
export const textChunkChars = 2048;

const words = [
  'durable',
  'agent',
  'history',
  'event',
  'workflow',
  'activity',
  'model',
  'tool',
  'replay',
  'turn',
  'worker',
  'payload',
];

/** ~2 KB of text that differs per turn, like a file the agent read. */
export function textChunk(turn: number): string {
  let seed = turn * 2654435761;
  let text = `chunk ${turn}:`;
  while (text.length < textChunkChars) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    text += ` ${words[seed % words.length]}`;
  }
  return text.slice(0, textChunkChars);
}

/** Returns ~2 KB of new text per call: the conversation grows by that much each turn. */
export const benchText = defineTool({
  name: 'bench_text',
  description: 'Benchmark tool: returns about 2 KB of text for the given turn.',
  input: z.object({ turn: z.number().int() }),
  async handler({ turn }) {
    return textChunk(turn);
  },
});

/** Does nothing and answers at once: the loop's own cost is all that is left to measure. */
export const benchEcho = defineTool({
  name: 'bench_echo',
  description: 'Benchmark tool: answers "ok" at once.',
  input: z.object({}),
  async handler() {
    return 'ok';
  },
});

/** Sleeps, and stops early when the activity is cancelled. */
export const benchSleep = defineTool({
  name: 'bench_sleep',
  description: 'Benchmark tool: sleeps for the given number of milliseconds.',
  input: z.object({ ms: z.number().int().min(0).max(60_000) }),
  activity: { timeout: '2m', maximumAttempts: 1 },
  handler({ ms }, { signal }) {
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve(`slept ${ms} ms`), ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
  },
});

/** bench_echo opted in to local activities: it runs inside the workflow task that follows the model's reply. */
export const benchEchoLocal = defineTool({
  name: 'bench_echo_local',
  description: 'Benchmark tool: answers "ok" at once, as a local activity.',
  input: z.object({}),
  activity: { local: true },
  async handler() {
    return 'ok';
  },
});

export const benchTools: Tool[] = [benchText, benchEcho, benchEchoLocal, benchSleep];
