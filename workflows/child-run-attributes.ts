import type { Priority, SearchAttributePair } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';
import { runOwnerMemoField } from '../core/approval-policy';
import { carriedSearchAttributes } from './versioning';

/**
 * A subagent's run speaks for the same person and tenant as the run that started it: the owner recorded in its memo
 * (so the web chat and `agent mcp` let only that principal read it or decide its approvals, serve/http/run-owner.ts,
 * and a policy's `principals` see it), the caller's own search attributes (a tenant's), and the task priority and
 * fairness key (the tenant, which the policy's `tenants` and the tenant's bounds read). Not the session kind: a
 * subagent's run is a one-shot run, whatever its parent is. Not `AgentForkedFrom`: a subagent is no fork.
 */
export function childRunAttributes(): {
  memo?: Record<string, unknown>;
  typedSearchAttributes?: SearchAttributePair[];
  priority?: Priority;
} {
  const { memo, priority } = workflowInfo();
  const owner = memo?.[runOwnerMemoField];
  const searchAttributes = carriedSearchAttributes().filter((pair) => pair.key.name !== forkedFromAttribute);
  const tenancy: Priority = {
    ...(priority?.priorityKey && { priorityKey: priority.priorityKey }),
    ...(priority?.fairnessKey && { fairnessKey: priority.fairnessKey }),
    ...(priority?.fairnessWeight && { fairnessWeight: priority.fairnessWeight }),
  };
  return {
    ...(typeof owner === 'string' && { memo: { [runOwnerMemoField]: owner } }),
    ...(searchAttributes.length > 0 && { typedSearchAttributes: searchAttributes }),
    ...(Object.keys(tenancy).length > 0 && { priority: tenancy }),
  };
}

// client/fork-agent.ts's search attribute, which workflow code may not import.
const forkedFromAttribute = 'AgentForkedFrom';
