/**
 * Extra settings for the local dev servers this project starts (the embedded
 * server of `npm run agent`, the tests' server). The dev server's single history
 * shard polls for new tasks at most 20 times a second by default, which adds
 * ~40 ms to every hand-over of a task to a worker — ~200 ms per loop iteration.
 * BENCHMARKS.md measures the difference.
 */
export const fastDispatchArgs = ['--dynamic-config-value', 'history.transferProcessorMaxPollRPS=10000'];
