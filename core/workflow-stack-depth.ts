/**
 * How many frames a stack trace taken in the workflow sandbox holds: 6, where V8's default is 10.
 *
 * The SDK's promise hook takes a stack trace of every promise a workflow makes, live and at every replay, and maps
 * each frame through the bundle's source map (node_modules/@temporalio/worker/lib/workflow/vm-shared.js): its cost
 * grows with the frames, and the agent's promises are made deep in its call stack (a turn, in its scope, in a run).
 * At 10 frames that hook was the largest part of what a chat message cost the workflow thread beyond Temporal's
 * floor (bench/NOTES.md, "CPU per message against the floor, 2026-12-03"). The trace of a promise keeps the 4
 * innermost frames (the hook's own two take the rest), which is where the workflow waits; an error thrown in workflow
 * code keeps 6.
 *
 * A side effect on load, and nothing else: with the SDK's reused V8 context this module is preloaded into the shared
 * context before the SDK freezes its built-ins (worker/shared-workflow-modules.ts), so it holds for every workflow of
 * the bundle; in a context of its own (debugMode, reuseV8Context off) each workflow sets it as the bundle loads. A
 * bundle built without the shared modules evaluates it per workflow in the reused context, after the freeze: there
 * Error is read-only and the depth stays V8's (assigning would throw, and fail every workflow task).
 */
export const workflowStackFrames = 6;

if (Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit')?.writable) Error.stackTraceLimit = workflowStackFrames;
