// The app's own workflows, bundled by its own worker. The agent workflow comes from the library;
// briefingWorkflow is the app's, and runs an agent as its child.
import { executeAgent } from 'durable-agent/workflow';

export { agentWorkflow } from 'durable-agent/workflow';

export async function briefingWorkflow(topic: string, workspace: string): Promise<string> {
  const result = await executeAgent(
    { agent: 'assistant', prompt: `Brief me on ${topic}.`, workspace },
    { workflowId: `briefing-${topic}` },
  );
  return `Briefing on ${topic} (${result.status}, by ${result.agent}): ${result.answer}`;
}
