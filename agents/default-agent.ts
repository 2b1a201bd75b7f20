import { defaultMaxIterations } from '../core/limits';
import { builtInTools } from '../tools';
import { defineAgent } from './define-agent';

/**
 * The agent a run gets when it names none: the built-in file tools and no
 * instructions. The run's own settings (the CLI's --model, --tools, --system,
 * --max-iterations) override its model, tools, instructions and limit, so a run
 * without an agent behaves as one always has.
 */
export const defaultAgent = defineAgent({
  name: 'default',
  description: 'A general-purpose agent with the built-in file tools.',
  model: 'openai:gpt-4o-mini',
  tools: builtInTools,
  maxIterations: defaultMaxIterations,
});
