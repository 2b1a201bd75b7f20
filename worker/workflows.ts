// The workflow bundle's entry point: the worker loads every workflow exported here, the agent's and each feature's
// (worker/features.ts adds the features' activities and agents).
export { agentWorkflow } from '../workflows';
export { evalWorkflow } from '../evals/workflow/eval-workflow';
