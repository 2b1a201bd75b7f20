import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startEmbeddedServer } from '../cli/dev-server/embedded-server';
import { freePorts, portAccepts } from '../cli/dev-server/free-port';
import { FakeModelServer, openaiReply } from '../test/support/fake-model-server';
import { typescriptArgs } from '../test/support/typescript-process';
import type { Benchmark } from './support/benchmark';
import { formatMs, markdownTable, type TargetRow } from './support/format';
import { log } from './support/log';
import { median } from './support/stats';

const targetMs = 2_000;

/** The steps the CLI marks with AGENT_TIMING=1 (telemetry/startup-timing.ts), in order, and the phase each one ends. */
const phases: Array<{ step: string; phase: string }> = [
  { step: 'modules loaded', phase: 'process start, the CLI entry loaded (tsx)' },
  { step: 'command loaded', phase: "the command's modules loaded (the embedded server, if needed, starts meanwhile)" },
  { step: 'client connected', phase: 'settings, server found (or waited for), client connected' },
  { step: 'worker connected', phase: 'worker connection' },
  { step: 'worker created', phase: 'worker created (workflow bundle)' },
  { step: 'workflow started', phase: 'workflow started' },
  { step: 'prepareRun started', phase: 'first workflow task → prepareRun' },
  { step: 'callModel started', phase: 'prepareRun → model activity' },
];
const requestPhase = 'model activity → request at the model';

interface FirstRun {
  totalMs: number;
  /** Phase → ms. */
  phases: Map<string, number>;
}

interface Variant {
  label: string;
  /** A fresh cache directory for every run (the workflows are bundled at start, as before the cache), or one kept warm. */
  cache: 'cold' | 'warm';
  /** No server address: the CLI starts its embedded server (on 7233 and 8233, its own ports) and stops it at the end. */
  embedded?: boolean;
}

const variants: Variant[] = [
  { label: 'bundled at start (no cached bundle: before)', cache: 'cold' },
  { label: 'cached bundle (after)', cache: 'warm' },
];
const embeddedVariant: Variant = { label: 'cached bundle, embedded server started by the CLI', cache: 'warm', embedded: true };

/**
 * `agent run "hi" --json` as a user types it, in a process of its own, against a running dev server and a model
 * server that answers at once: the time from spawning the CLI to the model request's arrival, and where it goes.
 * Each run has a task queue of its own, so no worker polls it and the CLI starts its own, as on a laptop. The
 * embedded server's own start (its state file already there) is measured on free ports beside it.
 */
export const firstRun: Benchmark = {
  name: 'first-run',
  title: 'A fast first run: `agent run` to the first model request',
  async run({ environment, quick }) {
    const rounds = quick ? 2 : 5;
    const server = await environment.server('project');
    const model = await FakeModelServer.start();
    model.respondWith(() => openaiReply({ content: 'hello' }));
    const root = await environment.temporaryDirectory('bench-first-run-');
    const warmCache = path.join(root, 'warm-cache');
    let coldCaches = 0;
    // The embedded server's own ports must be free for the CLI to start it: on a machine that runs a server there,
    // the run would use that one, so the embedded case is then only the sum of its parts.
    const embeddedPortsFree = !(await portAccepts(7233)) && !(await portAccepts(8233));
    const measured = embeddedPortsFree ? [...variants, embeddedVariant] : variants;
    const stateFile = path.join(root, 'embedded-state', 'temporal-dev.db');
    const runOnce = async (variant: Variant) => {
      const cacheHome = variant.cache === 'warm' ? warmCache : path.join(root, `cold-cache-${coldCaches++}`);
      return timeFirstRun(model, {
        ...(variant.embedded
          ? { AGENT_STATE_FILE: stateFile }
          : { TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace }),
        XDG_CACHE_HOME: cacheHome,
        AGENT_WORKSPACE_ROOT: root,
        AGENT_TRANSCRIPT_DIR: process.env.AGENT_TRANSCRIPT_DIR,
        AGENT_PAYLOAD_DIR: process.env.AGENT_PAYLOAD_DIR,
      });
    };
    try {
      log('first-run: a warm-up run of each variant (fills the bundle cache)...');
      for (const variant of measured) await runOnce(variant);
      const collected = measured.map((variant) => ({ variant, runs: [] as FirstRun[] }));
      for (let round = 0; round < rounds; round++) {
        log(`  round ${round + 1} of ${rounds}`);
        for (let offset = 0; offset < collected.length; offset++) {
          const entry = collected[(round + offset) % collected.length];
          entry.runs.push(await runOnce(entry.variant));
        }
      }
      const serverStarts = await timeEmbeddedServerStarts(root, quick ? 2 : 3);
      return report(collected, serverStarts);
    } finally {
      await model.close();
    }
  },
};

async function timeFirstRun(model: FakeModelServer, env: NodeJS.ProcessEnv): Promise<FirstRun> {
  const before = model.requests.length;
  const spawnedAt = Date.now();
  const child = spawn(
    process.execPath,
    [
      ...typescriptArgs('cli/main.ts'),
      'run',
      'hi',
      '--json',
      '--model',
      'openai:bench-first-run',
      '--workspace',
      env.AGENT_WORKSPACE_ROOT!,
    ],
    {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        AGENT_TASK_QUEUE: `bench-first-run-${spawnedAt}-${Math.random().toString(16).slice(2, 8)}`,
        OPENAI_BASE_URL: `${model.url}/v1`,
        OPENAI_API_KEY: 'sk-bench',
        AGENT_TIMING: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const request = model.requests[before];
  if (code !== 0 || !request)
    throw new Error(`agent run exited with ${code} (model requests: ${model.requests.length - before}): ${stderr}`);
  const marks = new Map<string, number>();
  for (const match of stderr.matchAll(/^\[timing\] \+[\d.]+ @([\d.]+) (.+)$/gm)) marks.set(match[2], Number(match[1]));
  const phaseTimes = new Map<string, number>();
  let previous = spawnedAt;
  for (const { step, phase } of phases) {
    const at = marks.get(step);
    if (at === undefined) throw new Error(`agent run did not mark "${step}" (AGENT_TIMING=1): ${stderr}`);
    phaseTimes.set(phase, at - previous);
    previous = at;
  }
  phaseTimes.set(requestPhase, request.receivedAt - previous);
  return { totalMs: request.receivedAt - spawnedAt, phases: phaseTimes };
}

/** The embedded dev server's start with its state file already written (a warm machine), on free ports. */
async function timeEmbeddedServerStarts(root: string, count: number): Promise<number[]> {
  const stateDirectory = path.join(root, 'embedded-state-timed');
  await mkdir(stateDirectory, { recursive: true });
  const previousStateFile = process.env.AGENT_STATE_FILE;
  process.env.AGENT_STATE_FILE = path.join(stateDirectory, 'temporal-dev.db');
  const times: number[] = [];
  try {
    log('first-run: the embedded server, once to write its state file, then timed...');
    for (let run = 0; run <= count; run++) {
      const [port, uiPort] = await freePorts(2);
      const ports = { port, uiPort };
      const started = performance.now();
      const server = await startEmbeddedServer(() => {}, ports);
      if (run > 0) times.push(performance.now() - started);
      await server.stop();
    }
  } finally {
    if (previousStateFile === undefined) delete process.env.AGENT_STATE_FILE;
    else process.env.AGENT_STATE_FILE = previousStateFile;
  }
  return times;
}

function report(collected: Array<{ variant: Variant; runs: FirstRun[] }>, serverStarts: number[]) {
  const phaseNames = [...phases.map((entry) => entry.phase), requestPhase];
  const breakdown = markdownTable(
    ['phase (median ms)', ...collected.map((entry) => entry.variant.label)],
    [
      ...phaseNames.map((phase) => [
        phase,
        ...collected.map((entry) => formatMs(median(entry.runs.map((run) => run.phases.get(phase)!)))),
      ]),
      [
        '**spawn → first model request**',
        ...collected.map((entry) => `**${formatMs(median(entry.runs.map((run) => run.totalMs)))}**`),
      ],
      ['all runs', ...collected.map((entry) => entry.runs.map((run) => formatMs(run.totalMs)).join(', '))],
    ],
  );
  const before = median(collected[0].runs.map((run) => run.totalMs));
  const after = median(collected[1].runs.map((run) => run.totalMs));
  const serverStart = median(serverStarts);
  const embeddedRuns = collected.find((entry) => entry.variant.embedded)?.runs;
  const embedded = embeddedRuns ? median(embeddedRuns.map((run) => run.totalMs)) : undefined;
  const servers = markdownTable(
    ['embedded dev server start (state file present)', 'median', 'runs'],
    [['spawn → serving (describeNamespace answers)', formatMs(serverStart), serverStarts.map(formatMs).join(', ')]],
  );
  const targets: TargetRow[] = [
    {
      measure: 'agent run → first model request, server running (cached bundle)',
      result: `${formatMs(after)} (${(after / before).toFixed(2)}× the ${formatMs(before)} of bundling at start)`,
      target: `< ${formatMs(targetMs)}`,
      pass: after < targetMs,
    },
    embedded
      ? {
          measure: 'agent run → first model request, embedded server started by the CLI',
          result: `${formatMs(embedded)} (the server started while the CLI loaded; ${formatMs(after)} with a running server, server start alone ${formatMs(serverStart)})`,
          target: `< ${formatMs(targetMs)}`,
          pass: embedded < targetMs,
        }
      : {
          measure:
            'agent run → first model request, embedded server started by the CLI (sum of the two: ports 7233/8233 in use here)',
          result: `${formatMs(after + serverStart)} (${formatMs(after)} + server start ${formatMs(serverStart)})`,
          target: `< ${formatMs(targetMs)}`,
          pass: after + serverStart < targetMs,
        },
  ];
  return { details: [breakdown, servers], targets };
}
