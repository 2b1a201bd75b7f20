import type { Priority } from '@temporalio/common';

/**
 * Who a run is for and how urgent it is, as Temporal's task priority carries them: the run's workflow and, through
 * it, its model and tool activities, subagent runs and continue-as-new runs (docs/production.md, "Quotas and tenants").
 */
export interface RunTenancy {
  /**
   * The tenant (Temporal's fairness key): on a server with fairness on, tasks of a backlogged queue are dispatched
   * across tenants in proportion to their weights, so one tenant's thousand runs do not hold back another's ten.
   * At most 64 bytes.
   */
  tenant?: string;
  /** 1 (first) to 5 (last); runs without one are 3. Within a queue's backlog, a lower number is dispatched first. */
  priority?: number;
  /** The tenant's share against other tenants (default 1; the server clamps it to 0.001..1000). */
  tenantWeight?: number;
}

/** Temporal's own limit on a fairness key. */
export const maxTenantBytes = 64;
/** The priority levels a Temporal server has unless its matching.priorityLevels says otherwise. */
export const lowestPriority = 5;

/** The start option for `tenancy`, or a message that says what is wrong with it. */
export function priorityOf(tenancy: RunTenancy): { priority?: Priority } | { problem: string } {
  const { tenant, priority, tenantWeight } = tenancy;
  if (tenant !== undefined) {
    if (tenant.trim() === '' || tenant !== tenant.trim())
      return { problem: 'tenant must be a non-empty name without surrounding spaces' };
    if (Buffer.byteLength(tenant, 'utf8') > maxTenantBytes)
      return {
        problem: `tenant must be at most ${maxTenantBytes} bytes (Temporal's limit on a fairness key), got ${Buffer.byteLength(tenant, 'utf8')}`,
      };
  }
  if (priority !== undefined && !(Number.isInteger(priority) && priority >= 1 && priority <= lowestPriority))
    return { problem: `priority must be a whole number from 1 (first) to ${lowestPriority} (last), got ${String(priority)}` };
  if (tenantWeight !== undefined && !(Number.isFinite(tenantWeight) && tenantWeight > 0))
    return { problem: `tenantWeight must be a number above 0, got ${String(tenantWeight)}` };
  if (tenantWeight !== undefined && tenant === undefined) return { problem: 'tenantWeight needs a tenant' };
  if (tenant === undefined && priority === undefined) return {};
  return {
    priority: {
      ...(priority !== undefined && { priorityKey: priority }),
      ...(tenant !== undefined && { fairnessKey: tenant }),
      ...(tenantWeight !== undefined && { fairnessWeight: tenantWeight }),
    },
  };
}
