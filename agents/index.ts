export { defineAgent, type Agent, type AgentDefinition } from './define-agent';
export { createAgentRegistry, AgentRegistry, type Definitions } from './registry';
export { defaultAgent } from './default-agent';
