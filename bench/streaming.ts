import { followStream } from '../client/follow-stream';
import { startAgent } from '../client/start-agent';
import { openaiReply } from '../test/support/fake-model-server';
import type { Benchmark } from './support/benchmark';
import { startFakeModelWorker } from './support/fake-model-worker';
import { formatBytes, formatCount, markdownTable } from './support/format';
import { fetchRunChain } from './support/history';
import { log } from './support/log';

// A reply of this many words, written a word every 10 ms (about 4 s): text batches every 200 ms.
const words = 400;
const wordIntervalMs = 10;

type Variant = { label: string; stream: boolean; watchers: number };

/**
 * What streaming costs in history: one run (a tool call, then a ~400-word answer
 * written over ~4 s) through the real model activity and openai client against
 * the local fake server, without streaming, streamed and unwatched, and streamed
 * with one and two watchers (`agent watch`'s subscription). The text costs a
 * signal per 200 ms batch; each watcher a poll update per batch it receives.
 */
export const streaming: Benchmark = {
  name: 'streaming',
  title: 'History cost of streaming a run',
  async run({ environment }) {
    const { fake, taskQueue } = await startFakeModelWorker(environment, { name: 'stream', workspace: environment.workspace });
    const answer = Array.from({ length: words }, (_, index) => `word${index}`).join(' ');
    const variants: Variant[] = [
      { label: 'not streamed', stream: false, watchers: 0 },
      { label: 'streamed, no watcher', stream: true, watchers: 0 },
      { label: 'streamed, 1 watcher', stream: true, watchers: 1 },
      { label: 'streamed, 2 watchers', stream: true, watchers: 2 },
    ];
    const rows: string[][] = [];
    let baseline: { bytes: number; events: number } | undefined;
    try {
      for (const variant of variants) {
        log(`streaming: ${variant.label}...`);
        fake.reset();
        fake.enqueue(
          {
            ...openaiReply({ content: 'Let me look.', toolCalls: [{ id: 'call_1', name: 'list_directory', arguments: {} }] }),
            stream: { intervalMs: wordIntervalMs },
          },
          { ...openaiReply({ content: answer }), stream: { intervalMs: wordIntervalMs } },
        );
        const handle = await startAgent(
          environment.client,
          {
            prompt: 'list and tell',
            model: 'openai:gpt-4o-mini',
            tools: ['list_directory'],
            workspace: environment.workspace,
            stream: variant.stream,
          },
          { taskQueue },
        );
        const watchers = Array.from({ length: variant.watchers }, () =>
          followStream(environment.client, handle.workflowId, { from: 0, onEvent: () => {} }),
        );
        await handle.result();
        await Promise.all(watchers);
        const runs = await fetchRunChain(environment.client, handle.workflowId, handle.firstExecutionRunId);
        const events = runs.flatMap((run) => run.events);
        const bytes = runs.reduce((total, run) => total + run.bytes, 0);
        const signals = events.filter((event) => event.workflowExecutionSignaledEventAttributes).length;
        const polls = events.filter((event) => event.workflowExecutionUpdateCompletedEventAttributes).length;
        baseline ??= { bytes, events: events.length };
        rows.push([
          variant.label,
          formatCount(events.length),
          formatBytes(bytes),
          `×${(bytes / baseline.bytes).toFixed(2)}`,
          formatCount(signals),
          formatCount(polls),
        ]);
      }
    } finally {
      await fake.close();
    }
    return {
      details: [
        `One run: a tool call, then a ${words}-word answer (${formatBytes(answer.length)}) written a word every ${wordIntervalMs} ms, ` +
          'through the real model activity and openai client (local fake server). Bytes: protobuf encodings of every history event.',
        markdownTable(['run', 'history events', 'history bytes', 'bytes vs not streamed', 'text signals', 'watcher polls'], rows),
      ],
      targets: [],
    };
  },
};
