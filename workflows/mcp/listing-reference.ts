import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { ModelCallInput, ModelCallResult } from '../../activities';
import { failureTypes } from '../../core/errors';
import type { McpListing } from '../../mcp/types';

type ModelActivity = (input: ModelCallInput) => Promise<ModelCallResult>;

/**
 * A model call that offers MCP tools names the run's listing by id: the worker
 * that listed the tools, or that was sent them once, has their schemas, so the
 * call's input does not carry every schema again. A worker that has not got
 * them says so (McpToolsUnavailable), and the call is made again with the tools.
 */
export function withMcpListing(activity: ModelActivity, listing: McpListing | undefined, onResend: () => void): ModelActivity {
  if (!listing) return activity;
  return async (input) => {
    if (!input.tools.some((name) => listing.tools[name] !== undefined)) return activity(input);
    try {
      return await activity({ ...input, mcp: { id: listing.id } });
    } catch (error) {
      if (!isMcpToolsUnavailable(error)) throw error;
      onResend();
      return activity({ ...input, mcp: { id: listing.id, tools: listing.tools } });
    }
  };
}

function isMcpToolsUnavailable(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === failureTypes.mcpToolsUnavailable
  );
}
