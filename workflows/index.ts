// The agent's workflows; the worker's bundle entry (worker/workflows.ts) exports them with the features' workflows.
export { agentWorkflow } from './agent';
