import path from 'node:path';
import { ConfigurationError } from '../core/errors';
import { loadMcpConfig } from '../mcp/config';
import type { ModelProvider } from '../providers';
import type { Tool } from '../tools';
import { isGrader, type Grader } from './define-grader';
import { isGuardrail, type Guardrail } from './define-guardrail';
import { isAgent, type Agent } from './define-agent';
import type { Definitions } from './registry';
import { requireUserModule } from './require-user-module';

/**
 * What the environment asks a worker to register beside the built-in agents,
 * tools and providers, by `npm run worker` and by the CLI alike: the MCP
 * servers of AGENT_MCP_CONFIG, and the user's definitions module named by
 * AGENT_DEFINITIONS (TypeScript or JavaScript, see require-user-module.ts; a relative path is taken from
 * the directory the command ran in): its exported `agents`, `tools`,
 * `providers`, `graders` and `guardrails` (arrays, or objects of values). A module that cannot be loaded,
 * or exports none of the five, or an MCP config that cannot be used, fails
 * here with the reason.
 */
export function loadDefinitions(env: NodeJS.ProcessEnv = process.env, from = env.INIT_CWD ?? process.cwd()): Definitions {
  const mcpServers = loadMcpConfig(env, from);
  return { ...loadModule(env, from), ...(Object.keys(mcpServers).length > 0 && { mcpServers }) };
}

function loadModule(env: NodeJS.ProcessEnv, from: string): Definitions {
  const named = env.AGENT_DEFINITIONS;
  if (!named) return {};
  const file = path.resolve(from, named);
  let loaded: Record<string, unknown>;
  try {
    loaded = requireUserModule(file);
  } catch (error) {
    throw new ConfigurationError(`AGENT_DEFINITIONS=${named}: cannot load ${file}: ${(error as Error).message}`);
  }
  const definitions: Definitions = {
    agents: valuesOf<Agent>(loaded.agents, 'agents', named),
    tools: valuesOf<Tool>(loaded.tools, 'tools', named),
    providers: valuesOf<ModelProvider>(loaded.providers, 'providers', named),
    graders: valuesOf<Grader>(loaded.graders, 'graders', named),
    guardrails: valuesOf<Guardrail>(loaded.guardrails, 'guardrails', named),
  };
  if (
    !definitions.agents!.length &&
    !definitions.tools!.length &&
    !definitions.providers!.length &&
    !definitions.graders!.length &&
    !definitions.guardrails!.length
  ) {
    throw new ConfigurationError(
      `AGENT_DEFINITIONS=${named}: ${file} exports no agents, tools, providers, graders or guardrails`,
    );
  }
  const notAgent = definitions.agents!.find((agent) => !isAgent(agent));
  if (notAgent) throw new ConfigurationError(`AGENT_DEFINITIONS=${named}: its agents must be made with defineAgent`);
  if (definitions.graders!.some((grader) => !isGrader(grader)))
    throw new ConfigurationError(`AGENT_DEFINITIONS=${named}: its graders must be made with defineGrader`);
  if (definitions.guardrails!.some((guardrail) => !isGuardrail(guardrail)))
    throw new ConfigurationError(`AGENT_DEFINITIONS=${named}: its guardrails must be made with defineGuardrail`);
  return definitions;
}

function valuesOf<T>(exported: unknown, name: string, module: string): T[] {
  if (exported === undefined) return [];
  if (Array.isArray(exported)) return exported as T[];
  if (typeof exported === 'object' && exported !== null) return Object.values(exported) as T[];
  throw new ConfigurationError(`AGENT_DEFINITIONS=${module}: its export "${name}" must be an array or an object of values`);
}
