import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { BenchEnvironment } from './support/environment';
import type { Benchmark } from './support/benchmark';
import { formatBytes, formatMs, markdownTable, type TargetRow } from './support/format';
import { log } from './support/log';
import { median } from './support/stats';
import { checkResolvedInput } from '../core/input-check';
import { resolvedAgentInputSchema } from '../core/input';
import { resolveAgentInput } from '../core/resolve-input';
import { zodMiniResolvedInput } from './support/zod-mini-input';

const root = path.join(__dirname, '..');
const rounds = 5;

// A user's workflow file: a workflow of their own beside durable-agent/workflow's exports. The workflow does nothing, so
// replaying it is the cost of a workflow's start: its creation in the sandbox, which evaluates the bundle's modules.
const userWorkflows = `export * from '../../workflow';\nexport async function bundleBenchWorkflow(): Promise<string> {\n  return 'started';\n}\n`;

interface Variant {
  name: string;
  code: string;
  perStart: number[];
}

/**
 * Whether zod belongs in the workflow bundle of a `durable-agent/workflow` user, decided with numbers.
 * Two bundles of the same workflows: `durable-agent/workflow` as it is (executeAgent resolves its input
 * without zod), and the same with core/resolve-input.ts (zod) imported, as executeAgent did before. Each
 * is measured by its size, and by what it costs every workflow a worker starts: with `reuseV8Context` the
 * bundle is compiled once, but every new workflow evaluates its modules again. A replay worker replays
 * one short recorded run many times (each replay is a new workflow); the time from the first result to
 * the last, divided by the replays after the first, is the cost per workflow start. The two bundles take
 * turns, `rounds` times, so that both meet the same load. The replayed run is a workflow of the user's own that
 * does nothing, beside durable-agent/workflow's exports: every workflow in the bundle pays the evaluation, whether it
 * runs an agent or not.
 */
export const workflowBundle: Benchmark = {
  name: 'workflow-bundle',
  title: 'zod in a workflow bundle: size and cost per workflow start',
  async run(context) {
    const starts = context.quick ? 20 : 60;
    const directory = path.join(root, '.test-tmp', 'bench-workflow-bundle');
    await mkdir(directory, { recursive: true });
    const leanEntry = path.join(directory, 'user-workflows.ts');
    await writeFile(leanEntry, userWorkflows);
    const withZodEntry = path.join(directory, 'user-workflows-with-zod.ts');
    // What a user's bundle held before: durable-agent/workflow, and executeAgent's zod schema with it.
    await writeFile(withZodEntry, `${userWorkflows}export { resolveAgentInput } from '../../core/resolve-input';\n`);
    const withZodMiniEntry = path.join(directory, 'user-workflows-with-zod-mini.ts');
    // What the bundle would hold if the workflow checked its input with zod/mini instead of the generated JSON Schema.
    await writeFile(
      withZodMiniEntry,
      `${userWorkflows}export { zodMiniResolvedInput } from '../../bench/support/zod-mini-input';\n`,
    );
    const quietLogger = { trace() {}, debug() {}, info() {}, log() {}, warn() {}, error: (message: string) => log(message) };
    log('workflow-bundle: bundling durable-agent/workflow with and without zod...');
    const variants: Variant[] = [
      {
        name: 'durable-agent/workflow (no zod)',
        code: (await bundleWorkflowCode({ workflowsPath: leanEntry, logger: quietLogger })).code,
        perStart: [],
      },
      {
        name: 'with zod (executeAgent before)',
        code: (await bundleWorkflowCode({ workflowsPath: withZodEntry, logger: quietLogger })).code,
        perStart: [],
      },
      {
        name: 'with zod/mini (the input schema in it)',
        code: (await bundleWorkflowCode({ workflowsPath: withZodMiniEntry, logger: quietLogger })).code,
        perStart: [],
      },
    ];
    await rm(directory, { recursive: true, force: true });
    log('workflow-bundle: recording a run of the workflow...');
    const history = await recordRun(context.environment, variants[0].code);

    for (let round = 1; round <= rounds; round++) {
      log(`workflow-bundle: ${starts} workflow starts with each bundle (${round} of ${rounds})...`);
      for (const variant of variants) variant.perStart.push(await timePerStart(variant.code, history, starts));
    }

    const [lean, withZod, withZodMini] = variants;
    log('workflow-bundle: timing input checks...');
    const checks = timeInputChecks(context.quick ? 2_000 : 10_000);
    const rows = variants.map((variant) => {
      const { code, sourceMap } = split(variant.code);
      const modules = [...variant.code.matchAll(/\n\/\*\*\*\/ "([^"]*)"/g)].map((match) => match[1]);
      const zodModules = modules.filter((module) => /[/\\]zod[/\\]/.test(module));
      return [
        variant.name,
        formatBytes(code),
        formatBytes(sourceMap),
        `${modules.length} (${zodModules.length} of zod)`,
        formatMs(median(variant.perStart)),
        variant.perStart.map((ms) => ms.toFixed(1)).join(', '),
      ];
    });
    const saved = median(withZod.perStart) - median(lean.perStart);
    const leanCode = split(lean.code).code;
    const zodCode = split(withZod.code).code;
    const targets: TargetRow[] = [
      {
        measure: "zod in a durable-agent/workflow user's bundle",
        result: `${formatBytes(leanCode)} of code without it, ${formatBytes(zodCode)} with it (${(zodCode / leanCode).toFixed(2)}×); ${formatMs(median(lean.perStart))} per workflow start without, ${formatMs(median(withZod.perStart))} with (${formatMs(saved)} saved per start)`,
        target: 'kept out if it costs each workflow start more than 10% (then executeAgent checks without zod)',
        pass: median(withZod.perStart) > 1.1 * median(lean.perStart),
      },
      {
        measure: 'zod/mini in place of the JSON Schema check (issue 30)',
        result: `${formatBytes(split(withZodMini.code).code)} of code (${(split(withZodMini.code).code / leanCode).toFixed(2)}×), ${formatMs(median(withZodMini.perStart))} per workflow start; a check of a session's input with 40 messages: ${checks.map(({ name, microseconds }) => `${name} ${microseconds.toFixed(1)} µs`).join(', ')}`,
        target: 'replaces the hand-written check only if it costs each workflow start at most 10% more',
        pass: median(withZodMini.perStart) <= 1.1 * median(lean.perStart),
      },
    ];
    return {
      details: [
        markdownTable(
          ['bundle', 'code', 'source map', 'modules', 'per workflow start (median)', `each round (ms, ${starts} starts)`],
          rows,
        ),
        `Each round replays one recorded run of a workflow that does nothing (beside durable-agent/workflow's exports in the user's bundle) ${starts + 1} times with a replay worker created from the bundle; per start is the time from the first result to the last, divided by ${starts}.`,
      ],
      targets,
    };
  },
};

/** The bundle's code and its inline source map, in bytes. */
function split(bundle: string): { code: number; sourceMap: number } {
  const marker = bundle.lastIndexOf('\n//# sourceMappingURL=');
  const code = marker < 0 ? bundle : bundle.slice(0, marker);
  return { code: Buffer.byteLength(code), sourceMap: Buffer.byteLength(bundle) - Buffer.byteLength(code) };
}

/** One run of the user's workflow on the benchmark's dev server, and its history. */
async function recordRun(environment: BenchEnvironment, code: string): Promise<History> {
  const server = await environment.server('project');
  const taskQueue = `bench-workflow-bundle-${randomUUID()}`;
  const worker = await Worker.create({
    connection: server.nativeConnection,
    namespace: server.namespace,
    taskQueue,
    workflowBundle: { code },
  });
  const client = new Client({ connection: server.connection, namespace: server.namespace });
  return worker.runUntil(async () => {
    const handle = await client.workflow.start('bundleBenchWorkflow', {
      taskQueue,
      workflowId: `bench-workflow-bundle-${randomUUID()}`,
    });
    await handle.result();
    return handle.fetchHistory();
  });
}

async function timePerStart(code: string, history: History, starts: number): Promise<number> {
  const histories = Array.from({ length: starts + 1 }, (_, index) => ({ workflowId: `bundle-bench-${index}`, history }));
  let first: number | undefined;
  let last = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: { code } }, histories)) {
    if (result.error) throw result.error;
    last = performance.now();
    first ??= last;
  }
  return (last - first!) / starts;
}

/** Microseconds per check of one input (a session with 40 messages, thinking included), median of 5 rounds, by each checker. */
function timeInputChecks(repetitions: number): Array<{ name: string; microseconds: number }> {
  const messages = Array.from({ length: 20 }, (_, turn) => [
    { role: 'user', content: `question ${turn}` },
    {
      role: 'assistant',
      content: `answer ${turn}`,
      toolCalls: [],
      thinking: [{ type: 'thinking', provider: 'anthropic', model: 'claude-sonnet-4-5', text: 'hm', signature: 'sig' }],
    },
  ]).flat();
  const resolved = resolveAgentInput({
    messages,
    model: 'anthropic:claude-sonnet-4-5',
    workspace: '/tmp/project',
    session: {},
    modelSettings: { temperature: 0.5 },
  });
  if (!resolved.ok) throw new Error(resolved.problems);
  const input = resolved.input;
  const checkers: Array<{ name: string; check: (value: unknown) => boolean }> = [
    { name: 'hand-written (JSON Schema)', check: (value) => checkResolvedInput(value).ok },
    { name: 'zod/mini', check: (value) => zodMiniResolvedInput.safeParse(value).success },
    { name: 'zod', check: (value) => resolvedAgentInputSchema.safeParse(value).success },
  ];
  return checkers.map(({ name, check }) => {
    const rounds: number[] = [];
    for (let round = 0; round < 5; round++) {
      const started = performance.now();
      for (let index = 0; index < repetitions; index++) if (!check(input)) throw new Error(`${name} refused the input`);
      rounds.push(((performance.now() - started) * 1000) / repetitions);
    }
    return { name, microseconds: median(rounds) };
  });
}
