/**
 * Extra settings for the local dev servers this project starts (the embedded
 * server of `npm run agent`, the tests' server). BENCHMARKS.md measures each.
 */

/**
 * The dev server's single history shard polls for new tasks at most 20 times a
 * second by default, which adds ~40 ms to every hand-over of a task to a worker:
 * ~200 ms per loop iteration.
 */
export const liftedDispatchArgs = ['--dynamic-config-value', 'history.transferProcessorMaxPollRPS=10000'];

/**
 * Eager activity execution: when a workflow task schedules an activity and the
 * same worker has a free activity slot, the server hands the activity back in its
 * answer to the workflow task instead of through the task queue (the SDK asks for
 * it by default; the server allows it only with this setting, off by default).
 * The model call and tool calls of each loop iteration skip one trip each.
 */
export const eagerActivityArgs = ['--dynamic-config-value', 'system.enableActivityEagerExecution=true'];

/** The search attribute a fork records its origin in (`agent fork`), so the Web UI can list a run's forks. */
export const forkSearchAttributeArgs = ['--search-attribute', 'AgentForkedFrom=Keyword'];

/** Everything a dev server of this project starts with. */
export const devServerArgs = [...liftedDispatchArgs, ...eagerActivityArgs, ...forkSearchAttributeArgs];
