// The workflow bundle's entry point: the worker loads every workflow exported here.
export { agentWorkflow } from './agent';
export { evalWorkflow } from '../evals/workflow/eval-workflow';
