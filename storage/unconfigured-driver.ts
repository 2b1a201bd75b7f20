import type { Payload, StorageDriver, StorageDriverClaim } from '@temporalio/common';
import { ConfigurationError } from '../core/errors';

/**
 * Stands in for the external-storage driver this process is not configured for,
 * so that a claim written by the other one (a local directory on another
 * machine, or a bucket this process was not told about) fails with what to set,
 * instead of Temporal's bare "No driver registered with name …".
 */
export class UnconfiguredDriver implements StorageDriver {
  readonly type = 'durable-agent.unconfigured';

  constructor(
    readonly name: string,
    private readonly explain: (claim: StorageDriverClaim) => string,
  ) {}

  async store(): Promise<StorageDriverClaim[]> {
    throw new ConfigurationError(`external storage driver "${this.name}" is not configured in this process`);
  }

  async retrieve(_context: unknown, claims: StorageDriverClaim[]): Promise<Payload[]> {
    throw new ConfigurationError(this.explain(claims[0]));
  }
}
