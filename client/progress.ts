import type { ProgressEvent } from '../agent/result';
import { progressQuery } from '../workflows/definitions';
import type { AgentHandle } from './start-agent';

const pollIntervalMs = 400;

export function describeEvent(event: ProgressEvent, model: string): string {
  switch (event.kind) {
    case 'model_turn': {
      const asked = event.toolCalls.length ? `asked for ${event.toolCalls.join(', ')}` : 'answered';
      return `turn ${event.turn} · ${model} ${asked} (${event.usage.inputTokens} in / ${event.usage.outputTokens} out tokens)`;
    }
    case 'tool_done':
      return `  ${event.isError ? '✗' : '✓'} ${event.summary}`;
    default: {
      const exhaustive: never = event;
      return JSON.stringify(exhaustive);
    }
  }
}

/**
 * Prints the run's progress while `done` is pending, by polling the progress
 * query, then prints whatever happened since the last poll.
 */
export async function followProgress(handle: AgentHandle, model: string, done: Promise<unknown>, print: (line: string) => void): Promise<void> {
  let seen = 0;
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => {});
  const poll = async () => {
    const events = await handle.query(progressQuery, seen).catch(() => []);
    for (const event of events) print(describeEvent(event, model));
    seen += events.length;
  };
  while (!finished) {
    await Promise.race([done.catch(() => {}), new Promise((resolve) => setTimeout(resolve, pollIntervalMs))]);
    await poll();
  }
}
