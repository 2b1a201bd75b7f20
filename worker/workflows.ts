// The workflow bundle's entry point: the worker loads every workflow exported here, the agent's and each feature's
// (worker/features.ts adds the features' activities and agents), and the tools each feature's workflow code runs.
// First: the stack depth holds before any workflow code makes a promise (core/workflow-stack-depth.ts).
import '../core/workflow-stack-depth';
import { registerWorkflowTools } from '../workflows/workflow-tools';
import { timeWorkflowTools } from '../time/workflow/time-waits';

// The time tools (sleep, wait_until, wait_for_event) run in the workflow: docs/time.md.
registerWorkflowTools(timeWorkflowTools);

export { agentWorkflow } from '../workflows';
export { evalWorkflow } from '../evals/workflow/eval-workflow';
