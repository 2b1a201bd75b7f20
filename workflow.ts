// `durable-agent/workflow`: what workflow code of your own may import (it runs in Temporal's workflow sandbox).
import { registerWorkflowTools } from './workflows/workflow-tools';
import { timeWorkflowTools } from './time/workflow/time-waits';

// A bundle of your own runs the time tools too (docs/time.md), as the worker's own bundle does (worker/workflows.ts).
registerWorkflowTools(timeWorkflowTools);

export { agentWorkflow } from './workflows/agent';
export { evalWorkflow } from './evals/workflow/eval-workflow';
export { executeAgent } from './workflows/execute-agent';
export {
  agentWorkflowType,
  awaitReplyUpdate,
  endSessionSignal,
  messagesQuery,
  sendMessageUpdate,
  statusQuery,
  steerUpdate,
} from './workflows/definitions';
export type { AgentInput } from './core/resolve-input';
export type { AgentResult, TurnReply } from './core/result';
