import { proxyActivities } from '@temporalio/workflow';
import type { CoreActivities, RunSetup } from '../../activities';
import { runFailure } from '../model-call';

/**
 * When the run's agents name MCP tools, lists them once, as an activity whose
 * result (in history) the run keeps for its whole life: each agent gets the
 * names its references stand for, and each name its activity settings and
 * origin. Replay reads the listing from history and never needs a server.
 * prepareRun's result says whether there is anything to list, so a run without
 * MCP tools schedules nothing more than before.
 */
export async function withMcpTools(setup: RunSetup): Promise<RunSetup> {
  const request = setup.mcpTools;
  if (!request) return setup;
  const { listMcpTools } = proxyActivities<CoreActivities>({
    summary: `list MCP tools: ${request.servers.join(', ')}`,
    // Starting a stdio server can take a while (an npx download, say); heartbeats notice a dead worker sooner.
    startToCloseTimeout: '2m',
    heartbeatTimeout: '30s',
    retry: { maximumAttempts: 3, initialInterval: '2s', backoffCoefficient: 2 },
  });
  const listed = await listMcpTools(request).catch((error: unknown) => {
    throw runFailure(error);
  });
  const approving = (name: string) => listed.approvalsByAgent?.[name] ?? [];
  const agents = Object.fromEntries(
    Object.entries(setup.agents).map(([name, agent]) => [
      name,
      {
        ...agent,
        tools: [...agent.tools, ...(listed.toolsByAgent[name] ?? [])],
        // The MCP tools that need approval, as names the model's calls carry (prepareRun set their selectors aside).
        ...(approving(name).length > 0 && { approveTools: [...(agent.approveTools ?? []), ...approving(name)] }),
      },
    ]),
  );
  return { ...setup, agents, tools: { ...setup.tools, ...listed.tools }, mcpListing: listed.listing };
}
