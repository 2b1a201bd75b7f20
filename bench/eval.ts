import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startAgent } from '../client/start-agent';
import { formatUsd } from '../core/cost';
import { casesFromRuns } from '../evals/cases';
import { runEval } from '../evals/run-eval';
import type { EvalReport } from '../core/eval-types';
import { providerReply, type FakeProvider, type Responder } from '../test/support/fake-model-server';
import type { Benchmark } from './support/benchmark';
import { startFakeModelWorker } from './support/fake-model-worker';
import { formatMs, markdownTable, type TargetRow } from './support/format';
import { log } from './support/log';

const cases = { full: 200, quick: 20 };
const concurrency = 20;
const recordedModel = 'openai:gpt-4o-mini';
const candidateModel = 'anthropic:claude-haiku-4-5';
// A real batch answers within minutes to hours; the fake's takes a second, and each run checks every 0.5 s to 2 s.
const batchSettings = { firstCheckSeconds: 0.5, maxCheckIntervalSeconds: 2, maxSubmissions: 3 };

/**
 * `agent eval` at scale (issue 32): recorded production runs (each a read_file call and an answer) replayed onto a
 * candidate on another provider, online and through the batch APIs, by runEval on the dev server: wall time, what the
 * candidate's calls cost, and the model requests per case (the recorded read_file result answers the candidate's
 * identical call, so a case costs the candidate's two model calls and no tool run).
 */
export const evalBench: Benchmark = {
  name: 'eval',
  title: 'An eval of recorded runs onto a candidate, online and batch',
  async run({ environment, quick }) {
    const count = quick ? cases.quick : cases.full;
    const workspace = await environment.temporaryDirectory('bench-eval-');
    await writeFile(path.join(workspace, 'ticket.txt'), 'The printer on floor 3 is out of toner.\n');
    const { fake, taskQueue } = await startFakeModelWorker(environment, { name: 'eval', workspace });
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
    const rows: string[][] = [];
    const targets: TargetRow[] = [];
    try {
      log(`eval: recording ${count} runs on ${recordedModel}...`);
      fake.respondWith(responder);
      const handles = await Promise.all(
        Array.from({ length: count }, (_, run) =>
          startAgent(
            environment.client,
            {
              prompt: `Classify ticket ${run + 1}: read ticket.txt and say its category and priority.`,
              model: recordedModel,
              tools: ['read_file'],
              workspace,
            },
            { taskQueue },
          ),
        ),
      );
      await Promise.all(handles.map((handle) => handle.result()));
      const evalCases = await casesFromRuns(environment.client, { workflowIds: handles.map((handle) => handle.workflowId) });

      const results: Record<string, { report: EvalReport; wallMs: number; requests: number }> = {};
      for (const mode of ['online', 'batch'] as const) {
        log(`eval: ${evalCases.length} cases onto ${candidateModel}, ${mode}...`);
        fake.reset();
        fake.respondWith(responder);
        fake.batches.always({ validatingMs: 100, inProgressMs: 1_000, finalizingMs: 100 });
        const started = performance.now();
        const report = await runEval(environment.client, {
          cases: evalCases,
          candidates: [{ name: 'haiku', model: candidateModel }],
          graders: [{ type: 'contains', value: 'Category: hardware' }],
          workspace,
          taskQueue,
          concurrency,
          ...(mode === 'batch' && { batch: batchSettings }),
        });
        const wallMs = performance.now() - started;
        if (fake.refusals.length > 0) throw new Error(`the fake server refused: ${fake.refusals[0].refusal}`);
        results[mode] = { report, wallMs, requests: fake.requests.length };
        const summary = report.summary.find((row) => row.candidate === 'haiku')!;
        rows.push([
          mode,
          String(evalCases.length),
          `${summary.passed}/${evalCases.length}`,
          formatMs(wallMs),
          formatUsd(summary.costUsd),
          (fake.requests.length / evalCases.length).toFixed(2),
        ]);
      }
      const online = results.online.report.summary.find((row) => row.candidate === 'haiku')!.costUsd;
      const batched = results.batch.report.summary.find((row) => row.candidate === 'haiku')!.costUsd;
      targets.push(
        {
          measure: `cost of ${count} eval cases, batch vs online (${candidateModel})`,
          result: `${(batched / online).toFixed(2)}x (${formatUsd(batched)} vs ${formatUsd(online)})`,
          target: '≤ 0.55x',
          pass: batched / online <= 0.55,
        },
        {
          measure: 'model requests per case (online; the recorded tool result answers the candidate)',
          result: (results.online.requests / count).toFixed(2),
          target: '= 2',
          pass: results.online.requests === 2 * count,
        },
      );
    } finally {
      await fake.close();
    }
    return {
      details: [
        `${count} recorded one-shot runs (${recordedModel}: a read_file call and an answer) made into cases by ` +
          `casesFromRuns, answered by a candidate on ${candidateModel} through runEval (${concurrency} child runs at ` +
          'once) and graded by a contains grader, online and in batch mode, through the real model activity and SDK ' +
          'clients against the local fake server and its batch APIs (each batch takes 1.2 s there). Cost is the ' +
          "candidate's, as the worker priced it at the shipped prices; requests counted at the fake server.",
        markdownTable(['mode', 'cases', 'passed', 'wall time', 'candidate cost', 'model requests / case'], rows),
      ],
      targets,
    };
  },
};
