import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import * as limits from '../../core/limits';
import * as changedLimits from './changed-defaults/limits';
import { workflowsPath } from '../../worker/create-worker';

const directory = path.join(__dirname, 'histories');

async function recordedHistories() {
  const files = (await readdir(directory)).filter((file) => file.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => ({
      workflowId: recordedWorkflowId(file),
      history: historyFromJSON(JSON.parse(await readFile(path.join(directory, file), 'utf8'))),
    })),
  );
}

/**
 * The workflow id a history was recorded under (test/replay/record.ts): `replay-<scenario>`, and
 * `replay-<scenario>/<tool call id>` for a subagent's child workflow. A run's commands name child
 * workflows after it, so replay must use the same id.
 */
function recordedWorkflowId(file: string): string {
  const [scenario, child] = file
    .replace(/\.json$/, '')
    .replace(/-run\d+$/, '')
    .split('-child-');
  return `replay-${scenario}${child ? `/${child}` : ''}`;
}

async function replayFailures(workflowBundle: { codePath: string } | WorkflowBundleWithSourceMap): Promise<string[]> {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle }, await recordedHistories())) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return failures;
}

/**
 * Replays every recorded history against the current workflow code. A change
 * that alters the commands a recorded run issued fails here, before it can
 * break runs that are open in production. Record new ones with `npm run record-histories`.
 */
it('replays every recorded history without a determinism error', async () => {
  expect((await recordedHistories()).length).toBeGreaterThanOrEqual(10);
  expect(await replayFailures({ codePath: process.env.TEST_WORKFLOW_BUNDLE! })).toEqual([]);
});

it('replays every recorded history unchanged when every default in core/limits.ts changes', async () => {
  // The stand-in really differs from agent/limits.ts in each default, and keeps every other export.
  const defaults = Object.keys(limits).filter((name) => name.startsWith('default') && name !== 'defaultTaskQueue');
  expect(defaults.length).toBeGreaterThanOrEqual(5);
  for (const name of defaults)
    expect(changedLimits[name as keyof typeof changedLimits]).not.toBe(limits[name as keyof typeof limits]);
  expect(Object.keys(changedLimits).sort()).toEqual(Object.keys(limits).sort());

  const original = path.join(__dirname, '..', '..', 'core', 'limits');
  const standIn = path.join(__dirname, 'changed-defaults', 'limits.ts');
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
    webpackConfigHook: (config) => {
      config.plugins = [
        ...(config.plugins ?? []),
        {
          // Every import of agent/limits (but the stand-in's own) gets the stand-in.
          apply(compiler) {
            compiler.hooks.normalModuleFactory.tap('changed-defaults', (factory) => {
              factory.hooks.beforeResolve.tap('changed-defaults', (data) => {
                const target = path.resolve(data.context ?? '', data.request);
                if (target === original && data.context !== path.dirname(standIn)) data.request = standIn;
              });
            });
          },
        },
      ];
      return config;
    },
  });
  expect(bundle.code).toContain('defaultMaxConcurrentTools = 1');
  expect(await replayFailures(bundle)).toEqual([]);
}, 120_000);
