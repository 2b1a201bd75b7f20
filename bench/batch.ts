import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { temporal } from '@temporalio/proto';
import { startAgent } from '../client/start-agent';
import { formatUsd } from '../core/cost';
import type { AgentResult } from '../core/result';
import { providerReply, type FakeProvider, type Responder } from '../test/support/fake-model-server';
import type { Benchmark } from './support/benchmark';
import { startFakeModelWorker } from './support/fake-model-worker';
import { formatBytes, formatCount, formatMs, markdownTable, type TargetRow } from './support/format';
import { log } from './support/log';

const runs = { full: 20, quick: 5 };
const target = 0.55;
const models: Partial<Record<FakeProvider, string>> = {
  openai: 'openai:gpt-4o-mini',
  anthropic: 'anthropic:claude-haiku-4-5',
};
// A real batch answers within minutes to hours; the fake's takes a second, and the run checks every 0.5 s to 2 s.
const batchSettings = { firstCheckSeconds: 0.5, maxCheckIntervalSeconds: 2, maxSubmissions: 3 };
const processingMs = 1_000;

interface Job {
  costUsd: number;
  wallMs: number;
  events: number;
  historyBytes: number;
}

/**
 * The cost of a batch job (20 one-shot runs nobody waits on, each a read_file call and an answer) sent through the
 * providers' batch APIs against the same job online, side by side in one run: the real model activity and SDK
 * clients against the local fake server (its batch APIs: test/support/fake-batch-api.ts), priced by the worker at
 * the shipped prices (batch: half). What batch mode costs besides: wall time (the fake's batches take a second;
 * real ones minutes to a day) and history (a submission, timers and status checks per model call).
 */
export const batch: Benchmark = {
  name: 'batch',
  title: 'A 20-run job through the batch APIs vs online',
  async run({ environment, quick }) {
    const count = quick ? runs.quick : runs.full;
    const workspace = await environment.temporaryDirectory('bench-batch-');
    await writeFile(path.join(workspace, 'ticket.txt'), 'The printer on floor 3 is out of toner.\n');
    const { fake, taskQueue } = await startFakeModelWorker(environment, { name: 'batch', workspace });
    // Each run: read the ticket, then answer. The first request of a conversation asks for the tool.
    const responder: Responder = (request, index) => {
      const provider: FakeProvider = request.path.includes('/messages') ? 'anthropic' : 'openai';
      const conversation = request.body?.messages ?? [];
      return conversation.length <= 2
        ? providerReply(provider, {
            toolCalls: [{ id: `read_${index}`, name: 'read_file', arguments: { path: 'ticket.txt' } }],
            inputTokens: 1200,
          })
        : providerReply(provider, { text: 'Category: hardware. Priority: low. Route to facilities.', inputTokens: 1400 });
    };

    async function job(model: string, inBatch: boolean): Promise<Job> {
      fake.reset();
      fake.respondWith(responder);
      fake.batches.always({ validatingMs: 100, inProgressMs: processingMs, finalizingMs: 100 });
      const started = performance.now();
      const handles = await Promise.all(
        Array.from({ length: count }, (_, run) =>
          startAgent(
            environment.client,
            {
              prompt: `Classify ticket ${run + 1}: read ticket.txt and say its category and priority.`,
              model,
              tools: ['read_file'],
              workspace,
              ...(inBatch && { batch: batchSettings }),
            },
            { taskQueue },
          ),
        ),
      );
      const results: AgentResult[] = await Promise.all(handles.map((handle) => handle.result()));
      const wallMs = performance.now() - started;
      if (fake.refusals.length > 0) throw new Error(`the fake server refused: ${fake.refusals[0].refusal}`);
      if (results.some((result) => result.status !== 'completed')) throw new Error('a run of the job did not complete');
      let events = 0;
      let historyBytes = 0;
      for (const handle of handles) {
        const history = await handle.fetchHistory();
        events += history.events?.length ?? 0;
        historyBytes += temporal.api.history.v1.History.encode(history).finish().length;
      }
      return { costUsd: results.reduce((sum, result) => sum + (result.usage.costUsd ?? 0), 0), wallMs, events, historyBytes };
    }

    const rows: string[][] = [];
    const targets: TargetRow[] = [];
    try {
      for (const [, model] of Object.entries(models)) {
        log(`batch: ${model}, online...`);
        const online = await job(model!, false);
        log(`batch: ${model}, batch mode...`);
        const batched = await job(model!, true);
        const ratio = batched.costUsd / online.costUsd;
        for (const [mode, result] of [
          ['online', online],
          ['batch', batched],
        ] as const) {
          rows.push([
            model!,
            mode,
            formatUsd(result.costUsd),
            formatMs(result.wallMs),
            formatCount(result.events / count),
            formatBytes(result.historyBytes / count),
          ]);
        }
        targets.push({
          measure: `cost of a ${count}-run job, batch vs online (${model})`,
          result: `${ratio.toFixed(2)}x (${formatUsd(batched.costUsd)} vs ${formatUsd(online.costUsd)})`,
          target: `≤ ${target}x`,
          pass: ratio <= target,
        });
      }
    } finally {
      await fake.close();
    }
    return {
      details: [
        `${count} one-shot runs started together, each a read_file call and an answer (two model calls), online and ` +
          'in batch mode, through the real model activity and SDK clients against the local fake server and its batch ' +
          `APIs (each batch takes ${formatMs(processingMs + 200)} there; checks every 0.5 s, doubling to 2 s). Cost as ` +
          'the worker priced it at the shipped prices; wall time from the first start to the last result; history per run.',
        markdownTable(['model', 'mode', 'job cost', 'wall time', 'history events / run', 'history bytes / run'], rows),
      ],
      targets,
    };
  },
};
