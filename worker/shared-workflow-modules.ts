import type { BundleOptions } from '@temporalio/worker';

/**
 * The workflow bundle's modules that every workflow on a worker may share instead of evaluating its own copy.
 *
 * With `reuseV8Context` (the SDK's default) the bundle is compiled once, but each workflow a worker starts evaluates
 * the modules its workflows import again, into objects and closures it holds for as long as it stays cached: 106 KB of
 * V8 heap per workflow for the agent workflow's graph (bench/NOTES.md, "Sessions per worker"). The SDK evaluates a
 * `preloadModules` module once, before any workflow exists, and hands every workflow the same (frozen) exports.
 *
 * That is only safe for modules that keep no per-workflow state and call no workflow API when they load, so the list
 * is core/'s pure functions, constants and the input schema, which import nothing but each other:
 * test/unit/shared-workflow-modules.test.ts fails if one of them (or anything it imports) reaches for
 * `@temporalio/*`, the workflows or module-level state. The workflows/ files stay per workflow: they call
 * `@temporalio/workflow`, which reads the running workflow.
 */
export const sharedWorkflowModules: readonly string[] = [
  '../core/approval-description',
  '../core/attachments',
  '../core/batch-settings',
  '../core/carried-state',
  '../core/context-view',
  '../core/cost',
  '../core/errors',
  '../core/guardrails',
  '../core/input-check',
  '../core/is-record',
  '../core/json-schema-check',
  '../core/limits',
  '../core/model-id',
  '../core/model-settings',
  '../core/resolved-input.schema.json',
  '../core/something-to-answer',
  '../core/stream-events',
  '../core/tool-arguments',
  '../core/tool-names',
  '../core/tool-pairing',
  '../core/tool-question',
  '../core/usage',
  '../core/visible-text',
  '../core/workspace-path',
  // Sets the sandbox's stack depth before the SDK freezes Error (core/workflow-stack-depth.ts).
  '../core/workflow-stack-depth',
].map((module) => require.resolve(module));

/** Bundle options with the shared modules preloaded (beside any the options already preload). */
export function withSharedWorkflowModules(options: BundleOptions): BundleOptions {
  return { ...options, preloadModules: [...new Set([...(options.preloadModules ?? []), ...sharedWorkflowModules])] };
}
