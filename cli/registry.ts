import { loadDefinitions } from '../agents/load-definitions';
import type { AgentRegistry } from '../agents/registry';
import { createWorkerRegistry } from '../worker/features';

let registry: AgentRegistry | undefined;

/**
 * The agents, tools and providers the CLI knows: the built-in ones and those of
 * AGENT_DEFINITIONS, loaded once per command. The CLI checks runs against them
 * before it starts anything, lists them (`agent agents`), and gives them to the
 * worker it runs in its own process.
 */
export function cliRegistry(): AgentRegistry {
  registry ??= createWorkerRegistry(loadDefinitions());
  return registry;
}

/** Forgets the registry, so that the next command loads its definitions again: for a process that runs several (tests). */
export function forgetCliRegistry(): void {
  registry = undefined;
}
