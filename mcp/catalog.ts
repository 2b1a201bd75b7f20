import { ApplicationFailure } from '@temporalio/common';
import { failureTypes } from '../core/errors';
import type { McpListing, McpListingReference } from './types';
import { listingId } from './listing';
import type { ToolDefinition } from '../providers';

/**
 * The MCP tool definitions of recent runs, by listing id, for the model
 * activity. A run's listing is recorded once (listMcpTools); each model call
 * names it by id, so a call's input grows by a digest, not by every schema.
 * The worker that listed knows it; another worker learns it the first time a
 * call sends the tools along, after this worker reported it did not have them.
 */
export class McpCatalog {
  private readonly listings = new Map<string, Map<string, ToolDefinition>>();

  constructor(private readonly capacity = 256) {}

  remember(id: string, tools: McpListing['tools']): void {
    const definitions = new Map(
      Object.entries(tools).map(([name, entry]) => [
        name,
        { name, description: entry.description, parameters: entry.parameters },
      ]),
    );
    this.listings.delete(id);
    this.listings.set(id, definitions);
    // Oldest first: a Map iterates in insertion order, and a listing used again moves to the end.
    while (this.listings.size > this.capacity) this.listings.delete(this.listings.keys().next().value!);
  }

  /**
   * The definitions a model call's listing names: from memory, or from the call itself when it carries them
   * (checked against the id). Neither: a non-retryable McpToolsUnavailable, on which the workflow sends them.
   */
  definitions(reference: McpListingReference | undefined): Map<string, ToolDefinition> {
    if (!reference) return new Map();
    if (reference.tools && listingId(reference.tools) === reference.id) this.remember(reference.id, reference.tools);
    const known = this.listings.get(reference.id);
    if (known) {
      this.listings.delete(reference.id);
      this.listings.set(reference.id, known);
      return known;
    }
    throw ApplicationFailure.create({
      type: failureTypes.mcpToolsUnavailable,
      message: `the MCP tool listing ${reference.id} is not known to this worker; the workflow sends it with the call`,
      nonRetryable: true,
    });
  }
}
