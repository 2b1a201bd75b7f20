import { AgentCard, A2A_PROTOCOL_VERSION, type AgentSkill, type SecurityScheme } from '@a2a-js/sdk';
import type { AgentRegistry } from '../agents/registry';
import { packageVersion } from '../install/package-root';

/** The one binding served: JSON-RPC over HTTP, with SSE for the streaming methods. */
export const jsonRpcBinding = 'JSONRPC';

/**
 * How a caller proves who it is, as the card says it: the web endpoint's principal rules put in A2A's words. No scheme
 * is a loopback server whose one user is the local one; a header a proxy sets is an API key in that header (the proxy
 * signs callers in, and proves itself to this server: serve/http/trusted-proxy.ts).
 */
export type CardSecurity = Record<string, SecurityScheme>;

/**
 * The agent card of agent `name` (A2A 1.0), at `url`, its JSON-RPC endpoint: the agent's description; one skill for
 * the agent's task, and one per tool it can reach (registered tools by their description, MCP tools by name), so a
 * caller sees what a task may touch; streaming, no push notifications; text in, text (and JSON, for an agent with an
 * outputSchema) out. Serialized with the SDK's own `AgentCard.toJSON`, the protocol's JSON form.
 */
export function agentCard(registry: AgentRegistry, name: string, url: string, security: CardSecurity = {}): unknown {
  const spec = registry.spec(name);
  const reachable = Object.values(registry.reachable(name));
  const tools = [...new Set(reachable.flatMap((agent) => agent.tools))];
  const outputModes = spec.outputSchema ? ['text/plain', 'application/json'] : ['text/plain'];
  const skill = (id: string, skillName: string, description: string, tags: string[]): AgentSkill => ({
    id,
    name: skillName,
    description,
    tags,
    examples: [],
    inputModes: ['text/plain'],
    outputModes,
    securityRequirements: [],
  });
  const skills = [
    skill(name, name, spec.description, ['agent']),
    ...tools.map((tool) =>
      skill(`${name}.${tool}`, tool, registry.tools.get(tool)?.description ?? `the tool ${tool} (an MCP server's)`, ['tool']),
    ),
  ];
  const schemes = Object.keys(security);
  return AgentCard.toJSON({
    name,
    description: spec.description,
    supportedInterfaces: [{ url, protocolBinding: jsonRpcBinding, tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: undefined,
    version: packageVersion(),
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: security,
    securityRequirements: schemes.map((scheme) => ({ schemes: { [scheme]: { list: [] } } })),
    defaultInputModes: ['text/plain'],
    defaultOutputModes: outputModes,
    skills,
    signatures: [],
  });
}

/** The card's security for a principal set by a proxy in `header` (agent serve --principal-header). */
export function proxyHeaderSecurity(header: string): CardSecurity {
  return {
    signedInByProxy: {
      scheme: {
        $case: 'apiKeySecurityScheme',
        value: {
          location: 'header',
          name: header,
          description: `the proxy in front of this server signs callers in and sets ${header}; a caller goes through it`,
        },
      },
    },
  };
}
