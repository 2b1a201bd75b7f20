import { workflowInfo, type ActivityOptions } from '@temporalio/workflow';

/**
 * The run's tenant (fairness key) and priority, as it was started with them (client/start-agent.ts), set on its model
 * and tool activities. The server would let them inherit the run's anyway; set here, the history's
 * ActivityTaskScheduled events show each activity's, and the activity keeps them whatever the server's inheritance
 * does. A run started without them (every run before them) schedules its activities exactly as before.
 */
export function runPriority(): Pick<ActivityOptions, 'priority'> {
  const priority = workflowInfo().priority;
  if (!priority || !(priority.priorityKey || priority.fairnessKey || priority.fairnessWeight)) return {};
  return {
    priority: {
      ...(priority.priorityKey && { priorityKey: priority.priorityKey }),
      ...(priority.fairnessKey && { fairnessKey: priority.fairnessKey }),
      ...(priority.fairnessWeight && { fairnessWeight: priority.fairnessWeight }),
    },
  };
}
