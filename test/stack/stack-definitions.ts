// The AGENT_DEFINITIONS module the stack test's workers load (worker/main.ts, as the compose file runs it): a lead
// agent with parallel file tools, a subagent on the other provider, an approved write, and slow_step, the fault
// tests' tool that logs where it ran (SLOW_STEP_LOG), so the test sees which worker ran which call.
import { defineAgent } from 'durable-agent';
import { slowStepTool } from '../support/slow-step-tool';

const stepLog = process.env.SLOW_STEP_LOG;
if (!stepLog) throw new Error('SLOW_STEP_LOG must name the step log file');
const slowStep = slowStepTool(stepLog, `worker-${process.pid}`);

const researcher = defineAgent({
  name: 'researcher',
  description: 'Reads files in the workspace and reports what they say.',
  instructions: 'You are the researcher.',
  model: 'anthropic:claude-haiku-4-5',
  tools: ['read_file'],
});

const lead = defineAgent({
  name: 'lead',
  description: 'Reads, writes and delegates to the researcher.',
  instructions: 'You are the lead.',
  model: 'openai:gpt-4o-mini',
  tools: ['read_file', 'write_file', slowStep],
  subagents: [researcher],
  approveTools: ['write_file'],
});

export const agents = [lead];
export const tools = [slowStep];
