import { defaultMaxIterations } from '../core/limits';
import { everyMcpTool } from '../mcp/types';
import { builtInTools } from '../tools';
import { defineAgent } from './define-agent';

/**
 * The agent a run gets when it names none: the built-in file tools, every tool
 * of the worker's MCP servers (`mcp:*`, none when it has no AGENT_MCP_CONFIG), and no
 * instructions. The run's own settings (the CLI's --model, --tools, --system,
 * --max-iterations) override its model, tools, instructions and limit, so a run
 * without an agent behaves as one always has.
 */
export const defaultAgent = defineAgent({
  name: 'default',
  description: 'A general-purpose agent with the built-in file tools and every MCP tool of the worker.',
  model: 'openai:gpt-4o-mini',
  tools: [...builtInTools, everyMcpTool],
  maxIterations: defaultMaxIterations,
});
